FROM python:3.11-slim
WORKDIR /app
COPY . /app
# editable: alembic/ and alembic.ini are read from the source tree
RUN pip install --no-cache-dir -e . && evidence models install
ENV HF_HUB_OFFLINE=1
CMD ["evidence", "serve", "--host", "0.0.0.0"]
