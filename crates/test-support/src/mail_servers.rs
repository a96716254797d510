//! Real mail servers for the e-mail tests, one pair per test on loopback:
//! Dovecot (IMAP on a plain/STARTTLS port and a TLS port, LMTP, and its
//! auth service) and a Postfix instance of the test's own (SMTP with
//! STARTTLS and on a TLS port, SASL through Dovecot) delivering into
//! Dovecot over LMTP. Both come from Debian (`scripts/setup.sh`); Postfix
//! must be started as root, as CI runs.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The test users (address, password).
pub const ANA: (&str, &str) = ("ana@baton.test", "secret-ana");
/// The second test user.
pub const BOB: (&str, &str) = ("bob@baton.test", "secret-bob");

/// A running Dovecot + Postfix pair; stopped on drop.
pub struct MailServers {
    /// Their configuration, mail and certificates.
    pub dir: tempfile::TempDir,
    /// IMAP (plain, with STARTTLS).
    pub imap: u16,
    /// IMAP over TLS.
    pub imaps: u16,
    /// LMTP (delivery into Dovecot).
    pub lmtp: u16,
    /// SMTP (with STARTTLS), when Postfix runs.
    pub smtp: u16,
    /// SMTP over TLS, when Postfix runs.
    pub smtps: u16,
    /// A relay, when Postfix runs: plain SMTP that takes mail from this
    /// computer without a sign-in (and offers none).
    pub relay: u16,
    dovecot: Child,
    postfix: bool,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether something listens on all `ports` within 10 s.
fn listens(ports: &[u16]) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if ports
            .iter()
            .all(|p| TcpStream::connect(("127.0.0.1", *p)).is_ok())
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

impl MailServers {
    /// Starts Dovecot only (IMAP tests).
    pub fn imap_only() -> Self {
        Self::start(false)
    }

    /// Starts Dovecot and Postfix.
    pub fn with_smtp() -> Self {
        Self::start(true)
    }

    fn start(smtp: bool) -> Self {
        for program in ["dovecot", "openssl"] {
            assert!(
                Command::new("which")
                    .arg(program)
                    .output()
                    .unwrap()
                    .status
                    .success(),
                "`{program}` is not installed: run scripts/setup.sh (make test does)"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        // Dovecot's mail user and Postfix reach into it.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut me = Self {
            imap: free_port(),
            imaps: free_port(),
            lmtp: free_port(),
            smtp: free_port(),
            smtps: free_port(),
            relay: free_port(),
            dovecot: Command::new("true").spawn().unwrap(),
            postfix: false,
            dir,
        };
        me.make_certificate();
        let auth = me.start_dovecot();
        if smtp {
            me.start_postfix(auth);
        }
        me
    }

    /// The test certificate authority (PEM), to trust.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// A certificate authority of the test's own and the servers'
    /// certificate (for localhost and 127.0.0.1) signed by it.
    fn make_certificate(&self) {
        let d = self.dir.path();
        let openssl = |args: &[&str]| {
            run(Command::new("openssl")
                .current_dir(d)
                .args(args)
                .stderr(Stdio::null()));
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=Baton Test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ]);
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            "key.pem",
            "-out",
            "cert.csr",
        ]);
        std::fs::write(
            d.join("cert.ext"),
            "basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "cert.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-out",
            "cert.pem",
            "-extfile",
            "cert.ext",
        ]);
    }

    /// Starts Dovecot; returns its auth service's port.
    fn start_dovecot(&mut self) -> u16 {
        let d = self.dir.path().to_path_buf();
        for sub in ["run", "state", "mail"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        std::fs::write(
            d.join("users"),
            format!(
                "{}:{{PLAIN}}{}\n{}:{{PLAIN}}{}\n",
                ANA.0, ANA.1, BOB.0, BOB.1
            ),
        )
        .unwrap();
        let (uid, gid) = mail_owner();
        run(Command::new("chown")
            .arg(format!("{uid}:{gid}"))
            .arg(d.join("mail")));
        // Ports are picked free, but another process may take one before
        // Dovecot binds it: then Dovecot stops, and other ports are tried.
        for _ in 0..5 {
            let auth = free_port();
            (self.imap, self.imaps, self.lmtp) = (free_port(), free_port(), free_port());
            let conf = dovecot_conf(
                &d,
                uid.clone(),
                gid.clone(),
                [self.imap, self.imaps, self.lmtp, auth],
            );
            std::fs::write(d.join("dovecot.conf"), conf).unwrap();
            let err = std::fs::File::create(d.join("dovecot.err")).unwrap();
            self.dovecot = Command::new("dovecot")
                .arg("-F")
                .arg("-c")
                .arg(d.join("dovecot.conf"))
                .stdout(Stdio::null())
                .stderr(err)
                .spawn()
                .expect("dovecot starts");
            if self.dovecot_listens(&[self.imap, self.imaps, self.lmtp, auth]) {
                return auth;
            }
        }
        panic!(
            "Dovecot did not start: {}",
            std::fs::read_to_string(d.join("dovecot.err")).unwrap_or_default()
        );
    }

    /// Waits until Dovecot listens on `ports`; false when it exited.
    fn dovecot_listens(&mut self, ports: &[u16]) -> bool {
        let start = Instant::now();
        loop {
            if ports
                .iter()
                .all(|p| TcpStream::connect(("127.0.0.1", *p)).is_ok())
            {
                return true;
            }
            if self.dovecot.try_wait().ok().flatten().is_some() {
                return false;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "Dovecot did not listen: {}{}",
                std::fs::read_to_string(self.dir.path().join("dovecot.err")).unwrap_or_default(),
                std::fs::read_to_string(self.dir.path().join("dovecot.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn start_postfix(&mut self, auth: u16) {
        let d = self.dir.path().join("postfix");
        std::fs::create_dir_all(d.join("queue")).unwrap();
        std::fs::create_dir_all(d.join("data")).unwrap();
        run(Command::new("chown").arg("postfix").arg(d.join("data")));
        let main = postfix_main(self.dir.path(), &d, self.lmtp, auth);
        std::fs::write(d.join("main.cf"), main).unwrap();
        // As for Dovecot: a port taken meanwhile means other ports.
        for _ in 0..5 {
            (self.smtp, self.smtps, self.relay) = (free_port(), free_port(), free_port());
            let master = postfix_master(self.smtp, self.smtps, self.relay);
            std::fs::write(d.join("master.cf"), master).unwrap();
            let started = Command::new("postfix")
                .arg("-c")
                .arg(&d)
                .arg("start")
                .output();
            self.postfix = true;
            let ports = [self.smtp, self.smtps, self.relay];
            if started.is_ok_and(|o| o.status.success()) && listens(&ports) {
                return;
            }
            let _ = Command::new("postfix")
                .arg("-c")
                .arg(&d)
                .arg("stop")
                .output();
        }
        panic!("Postfix did not start: {}", self.maillog());
    }

    /// Postfix's log (what it delivered or refused).
    pub fn maillog(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("postfix/maillog")).unwrap_or_default()
    }

    /// Delivers `message` (raw RFC 5322 bytes, well formed or not) into
    /// `to`'s INBOX through Dovecot's LMTP, as a mail server would.
    pub fn deliver(&self, to: &str, message: &[u8]) {
        let stream = TcpStream::connect(("127.0.0.1", self.lmtp)).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut w = stream;
        let mut expect = |code: &str| loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            assert!(
                line.starts_with(code),
                "LMTP: expected {code}, got {line:?}"
            );
            if line.as_bytes().get(3) == Some(&b' ') {
                break;
            }
        };
        expect("220");
        w.write_all(b"LHLO test\r\n").unwrap();
        expect("250");
        w.write_all(b"MAIL FROM:<sender@example.org>\r\n").unwrap();
        expect("250");
        w.write_all(format!("RCPT TO:<{to}>\r\n").as_bytes())
            .unwrap();
        expect("250");
        w.write_all(b"DATA\r\n").unwrap();
        expect("354");
        w.write_all(&dot_stuff(message)).unwrap();
        w.write_all(b"\r\n.\r\n").unwrap();
        expect("250");
        w.write_all(b"QUIT\r\n").unwrap();
    }

    /// The raw messages in `user`'s `folder` (`INBOX`, `Sent`, …), from
    /// the Maildir on disk.
    pub fn messages(&self, user: &str, folder: &str) -> Vec<Vec<u8>> {
        let mut base = self.dir.path().join("mail").join(user);
        if folder != "INBOX" {
            base = base.join(format!(".{folder}"));
        }
        let mut out = Vec::new();
        for sub in ["new", "cur"] {
            if let Ok(entries) = std::fs::read_dir(base.join(sub)) {
                for e in entries.flatten() {
                    out.push(std::fs::read(e.path()).unwrap());
                }
            }
        }
        out
    }

    /// Waits until `user`'s `folder` holds `n` messages.
    pub fn wait_for_messages(&self, user: &str, folder: &str, n: usize) -> Vec<Vec<u8>> {
        let start = Instant::now();
        loop {
            let m = self.messages(user, folder);
            if m.len() >= n {
                return m;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{user}'s {folder} has {} of {n} messages; Postfix log:\n{}",
                m.len(),
                self.maillog()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for MailServers {
    fn drop(&mut self) {
        if self.postfix {
            let _ = Command::new("postfix")
                .arg("-c")
                .arg(self.dir.path().join("postfix"))
                .arg("stop")
                .output();
        }
        let _ = Command::new("dovecot")
            .arg("-c")
            .arg(self.dir.path().join("dovecot.conf"))
            .arg("stop")
            .output();
        let _ = self.dovecot.wait();
    }
}

/// Doubles leading dots and ends lines in CRLF, for SMTP/LMTP DATA.
fn dot_stuff(message: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(message).replace("\r\n", "\n");
    let mut out = Vec::new();
    for line in text.split('\n') {
        if line.starts_with('.') {
            out.push(b'.');
        }
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.truncate(out.len() - 2);
    out
}

/// The uid and gid mail is stored as: the `mail` user when running as
/// root (Dovecot refuses root), else our own.
fn mail_owner() -> (String, String) {
    let id = |flag: &str, user: Option<&str>| {
        let mut c = Command::new("id");
        c.arg(flag);
        if let Some(u) = user {
            c.arg(u);
        }
        String::from_utf8(c.output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string()
    };
    if id("-u", None) == "0" {
        (id("-u", Some("mail")), id("-g", Some("mail")))
    } else {
        (id("-u", None), id("-g", None))
    }
}

fn dovecot_conf(d: &Path, uid: String, gid: String, ports: [u16; 4]) -> String {
    let [imap, imaps, lmtp, auth] = ports;
    let d = d.display();
    format!(
        r#"base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
ssl = yes
ssl_cert = <{d}/cert.pem
ssl_key = <{d}/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = 1
mail_location = maildir:{d}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={d}/mail/%u
}}
namespace inbox {{
  inbox = yes
  separator = /
  mailbox Drafts {{
    special_use = \Drafts
    auto = create
  }}
  mailbox Sent {{
    special_use = \Sent
    auto = create
  }}
  mailbox Archive {{
    special_use = \Archive
    auto = create
  }}
  mailbox Trash {{
    special_use = \Trash
    auto = create
  }}
  mailbox Entwürfe {{
    auto = create
  }}
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps}
    ssl = yes
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp}
  }}
}}
service auth {{
  inet_listener {{
    address = 127.0.0.1
    port = {auth}
  }}
}}
"#
    )
}

fn postfix_main(root: &Path, d: &Path, lmtp: u16, auth: u16) -> String {
    let (root, d) = (root.display(), d.display());
    format!(
        r#"compatibility_level = 3.6
queue_directory = {d}/queue
data_directory = {d}/data
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
shlib_directory = /usr/lib/postfix
meta_directory = /etc/postfix
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mail.baton.test
mydomain = baton.test
mydestination =
alias_maps =
alias_database =
local_recipient_maps =
virtual_mailbox_domains = baton.test
virtual_transport = lmtp:inet:127.0.0.1:{lmtp}
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:127.0.0.1:{auth}
smtpd_recipient_restrictions = permit_sasl_authenticated, reject
smtpd_relay_restrictions = permit_sasl_authenticated, reject
smtpd_tls_cert_file = {root}/cert.pem
smtpd_tls_key_file = {root}/key.pem
smtpd_tls_security_level = may
smtpd_error_sleep_time = 0s
mynetworks = 127.0.0.0/8
maillog_file_prefixes = /tmp, {root}
maillog_file = {d}/maillog
"#
    )
}

fn postfix_master(smtp: u16, smtps: u16, relay: u16) -> String {
    let services = [
        "cleanup unix n - n - 0 cleanup",
        "qmgr unix n - n 300 1 qmgr",
        "tlsmgr unix - - n 1000? 1 tlsmgr",
        "rewrite unix - - n - - trivial-rewrite",
        "bounce unix - - n - 0 bounce",
        "defer unix - - n - 0 bounce",
        "trace unix - - n - 0 bounce",
        "verify unix - - n - 1 verify",
        "flush unix n - n 1000? 0 flush",
        "proxymap unix - - n - - proxymap",
        "smtp unix - - n - - smtp",
        "error unix - - n - - error",
        "retry unix - - n - - error",
        "discard unix - - n - - discard",
        "lmtp unix - - n - - lmtp",
        "anvil unix - - n - 1 anvil",
        "scache unix - - n - 1 scache",
        "postlog unix-dgram n - n - 1 postlogd",
    ];
    format!(
        "127.0.0.1:{smtp} inet n - n - - smtpd\n127.0.0.1:{smtps} inet n - n - - smtpd -o smtpd_tls_wrappermode=yes\n\
         127.0.0.1:{relay} inet n - n - - smtpd -o smtpd_sasl_auth_enable=no -o smtpd_tls_security_level=none \
         -o smtpd_recipient_restrictions=permit_mynetworks,reject -o smtpd_relay_restrictions=permit_mynetworks,reject\n{}\n",
        services.join("\n")
    )
}
