"""Secret shapes as they turn up in pasted logs and shell lines: each line, with the strings
that must never be stored or put in a share link. Made-up values of the real formats; the
redaction test, the share-link test and the storage test all run over this one table."""

from __future__ import annotations

from typing import NamedTuple


class Shape(NamedTuple):
    name: str
    line: str
    secrets: tuple[str, ...]


AWS_ID = "AKIAQ7XW2LZR5NB4KD3M"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_x8Kd2LqW9zR4nB7vT1mC5pY3hF6jS0aE2gUq"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4iLCJyb2xlIjoicm9vdCJ9.Qm9ndXNTaWduYXR1cmVWYWx1ZTEyMw"
PASSWORD = "Hunter2-Qx9zV!w7"
HEX40 = "3f9a0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b"
HEX64 = "9c1f0e2d3b4a59687766554433221100ffeeddccbbaa99887766554433221100"
PEM_BODY = "MIIEowIBAAKCAQEAq8Zx9Lm2WkT4rP0sYv7Nc"

SHAPES: tuple[Shape, ...] = (
    Shape("aws access key id", f"boto3 upload failed for key {AWS_ID} on bucket", (AWS_ID,)),
    Shape("aws secret, named", f"aws_secret_access_key = {AWS_SECRET}", (AWS_SECRET,)),
    Shape("aws secret, bare", f"creds were {AWS_ID} {AWS_SECRET} in the env", (AWS_SECRET,)),
    Shape("aws secret, spaced name", f"export AWS_SECRET_ACCESS_KEY {AWS_SECRET}", (AWS_SECRET,)),
    Shape(
        "s3 presigned url",
        f"GET https://b.s3.amazonaws.com/ckpt.pt?X-Amz-Credential={AWS_ID}%2F20261207"
        f"&X-Amz-Signature={HEX64} 403",
        (HEX64, AWS_ID),
    ),
    Shape(
        "gcs signed url",
        f"download https://storage.googleapis.com/b/x?X-Goog-Signature={HEX64} failed",
        (HEX64,),
    ),
    Shape(
        "azure sas token",
        "blob https://acct.blob.core.windows.net/c/x?sv=2022-11-02&sig=q9Zr4Lm2Xw8Kd7Vb%2B3Nc6Tp1 404",
        ("q9Zr4Lm2Xw8Kd7Vb%2B3Nc6Tp1",),
    ),
    Shape(
        "azure account key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zk4Lm8Qw2Xr6Vt1Bn5Hc9Pq3Ls7Dg0Jy==",
        ("Zk4Lm8Qw2Xr6Vt1Bn5Hc9Pq3Ls7Dg0Jy",),
    ),
    Shape("github token", f"git fetch failed: GITHUB_TOKEN={GITHUB}", (GITHUB,)),
    Shape("github token in a url", f"git clone https://{GITHUB}@github.com/o/r.git", (GITHUB,)),
    Shape("github fine-grained token", f"Authorization: token {GITHUB_PAT}", (GITHUB_PAT,)),
    Shape("gitlab token", "curl --header PRIVATE-TOKEN:glpat-Xk4Lm8Qw2Xr6Vt1Bn5Hc", ("glpat-",)),
    Shape(
        "npm token",
        "//registry.npmjs.org/:_authToken=npm_Zk4Lm8Qw2Xr6Vt1Bn5Hc9Pq3Ls7Dg0JyAbCd",
        ("npm_Zk4",),
    ),
    Shape(
        "slack bot token",
        "alert hook failed with xoxb-2048193847-9182736450-Zk4Lm8Qw2Xr6Vt1Bn5Hc",
        ("Zk4Lm8Qw2Xr6Vt1Bn5Hc",),
    ),
    Shape(
        "slack webhook",
        "POST https://hooks.slack.com/services/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 failed",
        ("Zk4Lm8Qw2Xr6Vt1Bn5Hc9Pq3", "B4E5F6G7H"),
    ),
    Shape(
        "bearer token",
        "registry said 401, Authorization: Bearer q9Zr4Lm2Xw8Kd7Vb3Nc6",
        ("q9Zr4Lm2Xw8Kd7Vb3Nc6",),
    ),
    Shape("jwt", f"token expired: {JWT}", ("eyJzdWIiOiJhbm4iLCJyb2xlIjoicm9vdCJ9",)),
    Shape(
        "basic auth header",
        "Authorization: Basic dXNlcjpodW50ZXIyMjIyMjI=",
        ("dXNlcjpodW50ZXIyMjIyMjI",),
    ),
    Shape(
        "proxy authorization",
        "proxy-authorization: Basic YWxpY2U6czNjcjN0UGFzcw==",
        ("YWxpY2U6czNjcjN0UGFzcw",),
    ),
    Shape(
        "api key header",
        "x-api-key: 7Fq2Lm9Xw4Kd8Vb3Nc6Tp1Hy rejected",
        ("7Fq2Lm9Xw4Kd8Vb3Nc6Tp1Hy",),
    ),
    Shape(
        "cookie header",
        "Cookie: sessionid=q9zr4lm2xw8kd7vb; csrftoken=a1b2c3d4e5",
        ("q9zr4lm2xw8kd7vb", "a1b2c3d4e5"),
    ),
    Shape(
        "hugging face token",
        "HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 login",
        ("hf_aBcDeF",),
    ),
    Shape(
        "hugging face token flag",
        "huggingface-cli login --token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        ("hf_aBcDeF",),
    ),
    Shape(
        "openai key",
        "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz012345",
        ("sk-proj-abc",),
    ),
    Shape(
        "anthropic key",
        "ANTHROPIC_API_KEY=sk-ant-api03-Zk4Lm8Qw2Xr6Vt1Bn5Hc9Pq3Ls7",
        ("sk-ant-api03-Zk4",),
    ),
    Shape(
        "google api key",
        "key AIzaSyD4Lm8Qw2Xr6Vt1Bn5Hc9Pq3Ls7Dg0JyAb was rejected",
        ("AIzaSyD4Lm8",),
    ),
    Shape(
        "google oauth token",
        "access_token=ya29.a0AfH6SMBx4Lm8Qw2Xr6Vt1Bn5Hc9Pq3Ls7",
        ("ya29.a0AfH6SMBx4",),
    ),
    Shape(
        "nvidia ngc key",
        "NGC login with nvapi-Zk4Lm8Qw2Xr6Vt1Bn5Hc9Pq3Ls7Dg0Jy failed",
        ("nvapi-Zk4",),
    ),
    Shape("stripe key", "stripe.api_key sk_live_51H8xYzAbCdEfGhIjKlMnOpQr", ("sk_live_51H8",)),
    Shape(
        "databricks token",
        "DATABRICKS_HOST set, token dapi0123456789abcdef0123456789abcdef",
        ("dapi0123",),
    ),
    Shape("wandb key, named", f"WANDB_API_KEY={HEX40} wandb: ERROR", (HEX40,)),
    Shape("wandb key, login", f"wandb login {HEX40}", (HEX40,)),
    Shape("wandb key, flag", f"python train.py --wandb_key {HEX40} --epochs 3", (HEX40,)),
    Shape("api key flag with underscore", f"python serve.py --api_key {HEX40}", (HEX40,)),
    Shape("password, named", f"wandb init failed with password={PASSWORD}", (PASSWORD,)),
    Shape("password, json", f'{{"user": "ann", "password": "{PASSWORD}"}}', (PASSWORD,)),
    Shape("password, environment", f"DB_PASSWORD={PASSWORD} psql -h db", (PASSWORD,)),
    Shape("password, prose", "login failed with password Hunter2! for ann", ("Hunter2!",)),
    Shape("password flag", f"mysql --password {PASSWORD} -h db", (PASSWORD,)),
    Shape("password, short flag", f"sshpass -p {PASSWORD} ssh trainer", (PASSWORD,)),
    Shape("password, glued flag", f"mysql -p{PASSWORD} runs", (PASSWORD,)),
    Shape("redis password", f"redis-cli -a {PASSWORD} ping", (PASSWORD,)),
    Shape(
        "curl user and password",
        "curl -u alice:Hunter2pass https://artifacts/x.whl",
        ("Hunter2pass",),
    ),
    Shape(
        "url credentials",
        f"could not connect to postgres://trainer:{PASSWORD}@db:5432/runs",
        (PASSWORD,),
    ),
    Shape(
        "pem private key",
        f"tls setup failed: -----BEGIN RSA PRIVATE KEY----- {PEM_BODY}",
        (PEM_BODY,),
    ),
    Shape(
        "service-account json key",
        f'"private_key": "-----BEGIN PRIVATE KEY-----\\n{PEM_BODY}\\n-----END PRIVATE KEY-----\\n"',
        (PEM_BODY,),
    ),
    Shape(
        "zero-width-split token",
        f"GITHUB_TOKEN is {GITHUB[:20]}\u200b{GITHUB[20:]}",
        (GITHUB[20:],),
    ),
    Shape("email", "contact ann.lee@example.com for access", ("ann.lee@example.com",)),
    Shape("ip address", "NCCL INFO Bootstrap : Using eth0:10.12.0.7<0>", ("10.12.0.7",)),
    Shape("host name", "c10d rendezvous at gpu-node-17.cluster.internal:29400", ("gpu-node-17",)),
    Shape("host name after ssh", "ssh gpu-node-17 nvidia-smi", ("gpu-node-17",)),
    Shape(
        "user in a home path", 'File "/home/alice.smith/proj/train.py", line 3', ("alice.smith",)
    ),
    Shape("user in a macOS home path", "open /Users/annlee/ckpt/model.pt failed", ("annlee",)),
)
