FROM python:3.11-slim
WORKDIR /app
# .dockerignore keeps the host's .venv, data/ (keys, registry, engine) and models out
COPY . /app
# editable: alembic/ and alembic.ini are read from the source tree; the offline model profile
# is installed into /app/models here, so a container never depends on a host folder
RUN pip install --no-cache-dir -e . && evidence models install
ENV HF_HUB_OFFLINE=1
EXPOSE 8000
CMD ["evidence", "serve", "--host", "0.0.0.0"]
