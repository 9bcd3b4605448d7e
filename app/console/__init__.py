"""The browser console: static HTML, CSS and ES modules served at /console/ (app/main.py),
a client of the public API and nothing else. No build step, no CDN, no library: the files
here are what the browser runs."""

from pathlib import Path

CONSOLE_DIR = Path(__file__).parent
# Console pages may run only this folder's scripts and styles and talk only to this origin;
# document text is rendered as text, and this policy makes an injection inert even so. Images
# also from blob: URLs — the pages behind citations, fetched with the key by the console's
# own script (an <img> cannot send it), never a document's own markup.
CONSOLE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; "
               "img-src 'self' blob:; "
               "connect-src 'self'; form-action 'none'; base-uri 'none'; "
               "frame-ancestors 'none'")
