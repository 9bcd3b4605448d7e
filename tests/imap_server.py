"""A real IMAP server for tests: Debian's Dovecot on 127.0.0.1, its own configuration, users
and mail under a temporary folder, stopped after the test (skips with the reason where
Dovecot is not installed or the tests do not run as root, which Dovecot needs to switch to
its own users)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.live import free_port

USER, PASSWORD = "alice", "correct horse"
CONFIG = """protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
default_internal_user = dovecot
default_internal_group = dovecot
default_login_user = dovenull
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={root}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
"""


@dataclass
class ImapServer:
    host: str
    port: int
    root: Path

    def client(self):  # type: ignore[no-untyped-def]
        from imapclient import IMAPClient

        client = IMAPClient(self.host, port=self.port, ssl=False, timeout=10)
        client.login(USER, PASSWORD)
        return client

    def deliver(self, folder: str, message: bytes) -> None:
        client = self.client()
        try:
            if not client.folder_exists(folder):
                client.create_folder(folder)
            client.append(folder, message)
        finally:
            client.logout()


def why_not() -> str | None:
    if shutil.which("dovecot") is None:
        return "Debian's dovecot-imapd is not installed"
    if os.geteuid() != 0:
        return "Dovecot switches to its own users: the tests must run as root"
    try:
        pwd.getpwnam("dovecot")
        pwd.getpwnam("dovenull")
    except KeyError:
        return "the dovecot and dovenull users are missing (dovecot-imapd not set up)"
    return None


@contextmanager
def imap_server() -> Iterator[ImapServer]:
    reason = why_not()
    if reason:
        pytest.skip(reason)
    root = Path(tempfile.mkdtemp(prefix="dovecot-", dir="/tmp"))
    root.chmod(0o755)  # its login process (dovenull) reaches the sockets under it
    for sub in ("run", "state", "home"):
        (root / sub).mkdir()
        (root / sub).chmod(0o755)
    owner = pwd.getpwnam("dovecot")
    os.chown(root / "home", owner.pw_uid, owner.pw_gid)
    (root / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    (root / "users").chmod(0o644)  # its auth process reads it (a test's throwaway password)
    port = free_port()
    (root / "dovecot.conf").write_text(CONFIG.format(root=root, port=port))
    process = subprocess.Popen(["dovecot", "-F", "-c", str(root / "dovecot.conf")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = (root / "dovecot.log").read_text() if (root / "dovecot.log").exists() \
                        else ""
                    pytest.skip(f"Dovecot did not start: {log[-500:]}")
                time.sleep(0.1)
        yield ImapServer("127.0.0.1", port, root)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(root, ignore_errors=True)
