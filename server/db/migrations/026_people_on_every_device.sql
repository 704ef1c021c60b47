-- One person on every device (docs/operating.md, "People and devices"). On the embedded default a
-- person starts as a browser cookie; one who makes a passkey becomes a row in `people`, and from then
-- on every device they sign in on holds a session of theirs, not the person itself. All of these are
-- written and read by the server alone (`asServer`): no person's transaction sees them.

-- A person who keeps Confab on their devices. The first one on a fresh server is its owner; the owner
-- may give others a name a bot's `for:` can list.
create table people (
  person text primary key check (person <> ''),
  name text unique check (name is null or (char_length(name) between 1 and 40 and name = lower(name))),
  owner boolean not null default false,
  created_at timestamptz not null default now()
);
-- There is one owner at most: the unique index over the true rows alone.
create unique index people_one_owner on people (owner) where owner;

-- A person's passkeys, as @simplewebauthn/server verified them: the credential's id (base64url), its
-- public key, and the signature counter it last showed (a counter that goes back is a cloned key).
create table passkeys (
  id text primary key check (id <> ''),
  person text not null references people (person) on delete cascade,
  public_key bytea not null,
  counter bigint not null default 0 check (counter >= 0),
  transports text[] not null default '{}',
  -- Whether the passkey syncs across the person's devices (multiDevice) and is backed up now.
  device_type text not null check (device_type in ('singleDevice', 'multiDevice')),
  backed_up boolean not null default false,
  -- What made it, as the person would name it ("Chrome on Android").
  label text not null check (char_length(label) between 1 and 80),
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index passkeys_person on passkeys (person);

-- A signed-in device: what a passkey person's cookie names. Rolling (`seen_at` moves with each
-- request), and revocable from Devices: a removed row signs that device out at its next request.
-- The cookie carries a secret whose SHA-256 (hex) is `secret_hash`; the secret is never kept.
create table device_sessions (
  id uuid primary key default gen_random_uuid(),
  person text not null references people (person) on delete cascade,
  secret_hash text not null unique check (secret_hash ~ '^[0-9a-f]{64}$'),
  -- How the device came to be the person's: a passkey ceremony, or a link code from another device.
  via text not null check (via in ('passkey', 'link')),
  label text not null check (char_length(label) between 1 and 80),
  created_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);
create index device_sessions_person on device_sessions (person);

-- WebAuthn challenges, single-use and short-lived, kept here so that any instance can finish a
-- ceremony another began. A registration's challenge names the person it is for.
create table webauthn_challenges (
  challenge text primary key check (challenge <> ''),
  purpose text not null check (purpose in ('register', 'sign-in')),
  person text,
  expires_at timestamptz not null,
  check ((purpose = 'register') = (person is not null))
);
create index webauthn_challenges_expiry on webauthn_challenges (expires_at);

-- A short code a signed-in device shows so another becomes the same person: valid for five minutes
-- and once. Kept as the SHA-256 (hex) of the code, never the code.
create table link_codes (
  code_hash text primary key check (code_hash ~ '^[0-9a-f]{64}$'),
  person text not null references people (person) on delete cascade,
  expires_at timestamptz not null
);

-- A link the owner made to give somebody a name: opened once, by a passkey person, who takes it.
create table name_invites (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  name text not null check (char_length(name) between 1 and 40 and name = lower(name)),
  made_by text not null references people (person) on delete cascade,
  expires_at timestamptz not null
);

alter table people enable row level security;
alter table passkeys enable row level security;
alter table device_sessions enable row level security;
alter table webauthn_challenges enable row level security;
alter table link_codes enable row level security;
alter table name_invites enable row level security;
