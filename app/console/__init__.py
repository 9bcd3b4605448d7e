"""The browser console: static HTML, CSS and ES modules served at /console/ (app/main.py),
a client of the public API and nothing else. No build step, no CDN, no library: the files
here are what the browser runs."""

from pathlib import Path

CONSOLE_DIR = Path(__file__).parent
# Console pages may run only this folder's scripts and styles and talk only to this origin;
# document text is rendered as text, and this policy makes an injection inert even so.
CONSOLE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
               "connect-src 'self'; form-action 'none'; base-uri 'none'; "
               "frame-ancestors 'none'")
