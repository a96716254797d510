#!/usr/bin/env python3
"""The e-mail toolbox's figures for `make bench`, as ratios measured in the
same run (these machines are noisy), against a real Dovecot on loopback
(IMAP, plain, a private instance in a temporary folder):

1. "What's in my inbox?" on a mailbox of 1,000 messages: the 10 newest
   listed (from, subject, date, a snippet, attachment names), then the
   newest read whole. Baton: `baton tools call get_emails read_email`
   (a whole process: start-up, sign-in, commands). Python: a process
   doing the same with imaplib and the email package (whole messages,
   as a simple client does).
2. The same listing when each of the 10 newest messages carries a 2 MB
   attachment: Baton fetches each message's structure and first 16 KB;
   the Python client fetches whole messages.

    bench_mail.py --baton PATH/baton [--runs 5]

Needs dovecot-imapd and dovecot-lmtpd (scripts/setup.sh installs them);
run as root (Dovecot stores mail as the `mail` user) or as the mail owner.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

USER, PASSWORD = "ana@baton.test", "secret-ana"

PY_CLIENT = r'''
import email, email.policy, imaplib, sys, json
port = int(sys.argv[1])
m = imaplib.IMAP4("127.0.0.1", port)
m.login(sys.argv[2], sys.argv[3])
m.select("INBOX", readonly=True)
uids = sorted(int(u) for u in m.uid("SEARCH", None, "ALL")[1][0].split())[-10:][::-1]
rows = []
for uid in uids:
    data = m.uid("FETCH", str(uid), "(FLAGS BODY.PEEK[])")[1]
    msg = email.message_from_bytes(data[0][1], policy=email.policy.default)
    body = msg.get_body(("plain", "html"))
    text = body.get_content() if body else ""
    rows.append({"from": msg["from"], "subject": msg["subject"], "date": msg["date"],
                 "snippet": " ".join(text.split())[:160],
                 "attachments": [a.get_filename() for a in msg.iter_attachments()]})
data = m.uid("FETCH", str(uids[0]), "(BODY.PEEK[])")[1]
msg = email.message_from_bytes(data[0][1], policy=email.policy.default)
body = msg.get_body(("plain", "html")).get_content()
m.logout()
print(json.dumps({"listed": len(rows), "first": rows[0]["subject"], "attachments": rows[0]["attachments"], "body": len(body)}))
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_dovecot(root: Path) -> tuple[subprocess.Popen, int, int]:
    imap, lmtp = free_port(), free_port()
    os.chmod(root.parent, 0o755)
    for d in ("run", "state", "mail"):
        (root / d).mkdir(parents=True)
    (root / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    os.chmod(root, 0o755)
    owner = "mail" if os.geteuid() == 0 else str(os.geteuid())
    shutil.chown(root / "mail", user=owner, group=owner if owner == "mail" else None)
    uid = subprocess.run(["id", "-u", owner], capture_output=True, text=True).stdout.strip()
    gid = subprocess.run(["id", "-g", owner], capture_output=True, text=True).stdout.strip()
    (root / "dovecot.conf").write_text(f"""base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
mail_location = maildir:{root}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp}
  }}
}}
""")
    proc = subprocess.Popen(["dovecot", "-F", "-c", str(root / "dovecot.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for port in (imap, lmtp):
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit(f"Dovecot did not start: {(root / 'dovecot.log').read_text()}")
    return proc, imap, lmtp


def message(i: int, attachment: bytes | None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"Sender {i % 37} <sender{i % 37}@example.org>"
    msg["To"] = USER
    msg["Subject"] = f"Message {i}: quarterly numbers"
    msg["Date"] = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(1_700_000_000 + i * 60))
    msg.set_content(f"Hello Ana,\n\nhere are the numbers for week {i}. " + "Lorem ipsum dolor sit amet. " * 40)
    msg.add_alternative(f"<p>Hello Ana,</p><p>here are the numbers for <b>week {i}</b>.</p>" + "<p>Lorem ipsum dolor sit amet.</p>" * 40, subtype="html")
    if attachment is not None:
        msg.add_attachment(attachment, maintype="application", subtype="pdf", filename=f"report-{i}.pdf")
    return msg


def deliver(lmtp: int, messages: list[EmailMessage]) -> None:
    with smtplib.LMTP("127.0.0.1", lmtp) as s:
        for m in messages:
            s.send_message(m, from_addr="sender@example.org", to_addrs=[USER])


def timed(cmd: list[str], env: dict) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    took = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {out.stdout}{out.stderr}")
    return took, out.stdout


def measure(baton: str, imap: int, runs: int, home: Path) -> dict:
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "setup.json").write_text(json.dumps({
        "skipIndexingOnStartup": True,
        "email": {"address": USER},
        "imap": {"host": "127.0.0.1", "port": imap, "tls": "none"},
    }))
    env = {**os.environ, "BATON_CONFIG_DIR": str(config), "BATON_DATA_DIR": str(home / "data"),
           "BATON_WORKSPACE": str(home / "ws"), "BATON_IMAP_PASSWORD": PASSWORD, "HOME": str(home)}
    (home / "ws").mkdir(exist_ok=True)
    b_cmd = [baton, "tools", "call", '{"method": "get_emails", "count": 10}']
    py_cmd = [sys.executable, "-c", PY_CLIENT, str(imap), USER, PASSWORD]
    b_times, p_times = [], []
    for _ in range(runs):
        took, out = timed(b_cmd, env)
        listed = json.loads(out)
        newest = listed[0]["id"]
        took_read, _ = timed([baton, "tools", "call", json.dumps({"method": "read_email", "id": newest})], env)
        b_times.append(took + took_read)
        took, pout = timed(py_cmd, env)
        p_times.append(took)
    py = json.loads(pout)
    assert listed[0]["subject"] == py["first"], (listed[0]["subject"], py["first"])
    assert listed[0].get("attachments", []) == py["attachments"], (listed[0], py)
    return {"baton": statistics.median(b_times), "python": statistics.median(p_times),
            "listed": len(listed), "attachments": listed[0].get("attachments", [])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    if not shutil.which("dovecot"):
        sys.exit("dovecot is not installed (scripts/setup.sh installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        proc, imap, lmtp = start_dovecot(root / "dovecot")
        try:
            deliver(lmtp, [message(i, None) for i in range(1000)])
            plain = measure(a.baton, imap, a.runs, root / "home-plain")
            blob = os.urandom(2 * 1024 * 1024)
            deliver(lmtp, [message(1000 + i, blob) for i in range(10)])
            heavy = measure(a.baton, imap, a.runs, root / "home-heavy")
        finally:
            subprocess.run(["dovecot", "-c", str(root / "dovecot" / "dovecot.conf"), "stop"], capture_output=True)
            proc.wait()
    print(f"(medians of {a.runs} runs, whole processes, Dovecot on loopback)")
    for label, r in (("1,000 messages: list 10 + read 1", plain), ("10 newest with 2 MB attachments: list 10 + read 1", heavy)):
        print(f"  {label:<52} Baton {r['baton'] * 1000:7.0f} ms   Python imaplib {r['python'] * 1000:7.0f} ms   ratio {r['python'] / r['baton']:.1f}x")


if __name__ == "__main__":
    main()
