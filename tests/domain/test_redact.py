"""Redaction before storage: planted secrets go, clean log lines stay as they were."""

from __future__ import annotations

import pytest
from paths import LABELLED
from secret_shapes import SHAPES, Shape

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.redact import redact, redacted_pieces

AWS = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF"
SLACK = "xoxb-263594206564-FGqddMF8t08v8N7Oq4i57vs1"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
HF = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
OPENAI = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
PASSWORD = "s3cr3t-P4ssw0rd!"
PEM_BODY = "MIIEpAIBAAKCAQEA7bq98uHeiXjSg1tFq2wP3ZK8v1LxZmMx1cQ9Gm"
BASIC = "dXNlcjpodW50ZXIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjI"
EMAIL = "ann.lee@example.com"
IP = "10.12.0.7"
HOST = "gpu-node-17.cluster.internal"

# (line as it would appear in a log or a shell history, the planted secret)
PLANTED = [
    *[(f"export AWS_ACCESS_KEY_ID={AWS}", AWS), (f"aws_access_key_id = {AWS}", AWS)],
    *[
        (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
        (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET),
    ],
    *[
        (f"git clone https://{GITHUB}@github.com/org/repo.git", GITHUB),
        (f"GITHUB_TOKEN={GITHUB} make", GITHUB),
    ],
    *[(f"token {GITHUB_PAT}", GITHUB_PAT), (f"Authorization: token {GITHUB_PAT}", GITHUB_PAT)],
    *[(f"slack: posting with {SLACK}", SLACK), (f"SLACK_BOT_TOKEN={SLACK}", SLACK)],
    *[(f"Authorization: Bearer {JWT}", JWT), (f"cookie session={JWT}; path=/", JWT)],
    *[(f"HF_TOKEN={HF} huggingface-cli login", HF), (f"login with {HF} failed", HF)],
    *[(f"openai.api_key = '{OPENAI}'", OPENAI), (f"Incorrect API key provided: {OPENAI}", OPENAI)],
    *[(f"psql postgres://trainer:{PASSWORD}@db.internal:5432/runs", PASSWORD)],
    *[(f"password: {PASSWORD}", PASSWORD), (f"DB_PASSWORD={PASSWORD}", PASSWORD)],
    *[
        (f"mysql -u root --password={PASSWORD}", PASSWORD),
        (f"redis://:{PASSWORD}@cache:6379", PASSWORD),
    ],
    *[(f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----", PEM_BODY)],
    *[(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}", PEM_BODY)],
    *[(f"Authorization: Basic {BASIC}", BASIC), (f"proxy-authorization: Basic {BASIC}", BASIC)],
    *[(f"contact {EMAIL} for access", EMAIL), (f"git config user.email {EMAIL}", EMAIL)],
    *[(f"NCCL INFO Bootstrap : Using eth0:{IP}<0>", IP), (f"connect to {IP}:29500 failed", IP)],
    *[(f"ssh {HOST} nvidia-smi", HOST), (f"c10d rendezvous at {HOST}:29400", HOST)],
    # Issue 13, item 9: names followed by a space, password flags, hosts of any suffix.
    *[(f"export AWS_SECRET_ACCESS_KEY {AWS_SECRET}", AWS_SECRET)],
    *[
        (f"mysql --password {PASSWORD} -h db", PASSWORD),
        (f"redis-cli -a {PASSWORD} ping", PASSWORD),
    ],
    *[(f"sshpass -p {PASSWORD} ssh trainer", PASSWORD), (f"mysql -p{PASSWORD} runs", PASSWORD)],
    *[("ssh gpu-node-17 nvidia-smi", "gpu-node-17"), ("MASTER_ADDR=trainer3 torchrun", "trainer3")],
    *[("connect to node4.example.xyz failed", "node4.example.xyz")],
    *[("hostname: worker-3", "worker-3"), ("c10d at db7.research.fi:29400", "db7.research.fi")],
]


def test_at_least_99_percent_of_planted_secrets_are_removed() -> None:
    cases = PLANTED
    leaked = [(line, secret) for line, secret in cases if secret in redact(line)]
    rate = 1 - len(leaked) / len(cases)
    assert rate >= 0.99, f"{rate:.3f} redacted; leaked e.g. {leaked[:5]}"


@pytest.mark.parametrize("shape", [pytest.param(s, id=s.name) for s in SHAPES])
def test_every_secret_shape_is_redacted(shape: Shape) -> None:
    redacted = redact(shape.line)
    assert not [secret for secret in shape.secrets if secret in redacted], redacted


def test_the_table_holds_at_least_40_shapes() -> None:
    assert len({shape.name for shape in SHAPES}) >= 40


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param("password=hunter2 user=bob", "password=<secret> user=bob", id="named"),
        pytest.param(
            "Authorization: Bearer abc.def.ghi123456", "Authorization: <secret>", id="bearer"
        ),
        pytest.param(
            "postgres://u:p@db.internal:5432/x", "postgres://<secret>@<host>:5432/x", id="url"
        ),
        pytest.param("peer node-17.cluster.local<10.0.0.5>", "peer <host><<ip>>", id="host-ip"),
    ],
)
def test_rules_keep_the_shape_of_the_line(line: str, expected: str) -> None:
    assert redact(line) == expected


def test_at_most_1_percent_of_clean_log_lines_are_altered() -> None:
    lines = [line.text for line in read_labelled(LABELLED)]
    assert len(lines) >= 100
    altered = [line for line in lines if redact(line) != line and not _has_address(line)]
    clean = [line for line in lines if not _has_address(line)]
    assert len(altered) / len(clean) <= 0.01, altered[:5]


def _has_address(line: str) -> bool:
    """Lines with an IP, host name, e-mail or home-directory user name are meant to change;
    they are not clean."""
    redacted = redact(line)
    return redacted != line and any(p in redacted for p in ("<ip>", "<host>", "<email>", "<user>"))


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("DB_PASSWORD=Summer2024.Pass", id="dotted-password"),
        pytest.param('PGPASSWORD="My.Secret"', id="quoted-dotted"),
        pytest.param("api_key=prod.K3yValue", id="dotted-key"),
        pytest.param("password=my.secret", id="lowercase-dotted-password"),
    ],
)
def test_dotted_values_of_secret_names_are_still_secrets(line: str) -> None:
    assert "<secret>" in redact(line)


def test_a_long_text_redacted_in_pieces_is_redacted_as_a_whole() -> None:
    """Every shape, among log lines and a PEM block split across pieces of 200 characters,
    comes out as `redact` of the whole text: no secret is cut in two at a piece's end."""
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
    filler = [f"[rank{n}] step {n} loss 1.{n} on {HOST} at {IP}" for n in range(30)]
    lines = [*filler[:10], pem, *[shape.line for shape in SHAPES], *filler[10:], pem]
    text = "\n".join(lines)
    pieced = "".join(redacted_pieces(text, piece_chars=200))
    assert pieced == redact(text)
    assert PEM_BODY not in pieced
    for shape in SHAPES:
        assert not any(secret in pieced for secret in shape.secrets), shape.name


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_redaction_keeps_every_line_of_a_log(shape: Shape) -> None:
    """A kept log is redacted, and its result names lines by number: a secret's line,
    multi-line PEM blocks included, stays one line (or as many as it was)."""
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
    unended = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}"
    log = "\n".join(["step 1", shape.line, pem, "step 2", unended, "step 3 loss 1.5"])
    redacted = redact(log)
    assert redacted.count("\n") == log.count("\n")
    assert redacted.splitlines()[-1] == "step 3 loss 1.5"
