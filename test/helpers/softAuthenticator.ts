/**
 * A software authenticator for server tests: what a browser and a platform authenticator answer to a
 * WebAuthn ceremony, made with node:crypto (ES256, "none" attestation) so that @simplewebauthn/server
 * verifies it for real. One authenticator is one device's passkey store: it makes a discoverable
 * passkey per relying party and person, counts its signatures, and signs assertions with it.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** The authenticator data flags: user present, user verified, backup eligible and state, attested data. */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

interface Credential {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  counter: number;
}

export interface SoftAuthenticatorOptions {
  /** Whether its passkeys sync (backup eligible and backed up): a synced passkey's manager. Default false. */
  synced?: boolean;
  /** Whether it verifies the user (a screen lock). Default true. */
  verifies?: boolean;
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

function uint32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}

/** The credential's public key as COSE (EC2, P-256, ES256). */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x ?? '', 'base64url')],
      [-3, Buffer.from(jwk.y ?? '', 'base64url')],
    ]),
  );
}

export class SoftAuthenticator {
  private readonly credentials: Credential[] = [];
  private readonly synced: boolean;
  private readonly verifies: boolean;

  constructor({ synced = false, verifies = true }: SoftAuthenticatorOptions = {}) {
    this.synced = synced;
    this.verifies = verifies;
  }

  /** The ids of the passkeys it holds, base64url. */
  get passkeyIds(): string[] {
    return this.credentials.map((credential) => b64url(credential.id));
  }

  /** `navigator.credentials.create` as @simplewebauthn/browser answers it, on the page at `origin`. */
  register(options: PublicKeyCredentialCreationOptionsJSON, origin: string): RegistrationResponseJSON {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((credential) => credential.id));
    if (this.credentials.some((credential) => excluded.has(b64url(credential.id)))) throw new Error('InvalidStateError: this authenticator holds an excluded credential.');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential: Credential = { id: randomBytes(16), rpId, userHandle: options.user.id, privateKey, publicKey, counter: 0 };
    this.credentials.push(credential);
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false });
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flags() | AT]), uint32(credential.counter), Buffer.alloc(16), idLength, credential.id, coseKey(publicKey)]);
    const attestationObject = isoCBOR.encode(new Map<string, string | Map<string, string> | Uint8Array>([['fmt', 'none'], ['attStmt', new Map<string, string>()], ['authData', authData]]));
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: { clientDataJSON: b64url(Buffer.from(clientDataJSON)), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** `navigator.credentials.get` as @simplewebauthn/browser answers it: its passkey for the relying party (the first, or `id`). */
  signIn(options: PublicKeyCredentialRequestOptionsJSON, origin: string, id?: string): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(origin).hostname;
    const credential = this.credentials.find((each) => each.rpId === rpId && (id === undefined || b64url(each.id) === id));
    if (credential === undefined) throw new Error(`NotAllowedError: no passkey for ${rpId} here.`);
    // A synced passkey's copies cannot share a count: such passkeys count nothing (0), as managers' do.
    if (!this.synced) credential.counter += 1;
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const authenticatorData = Buffer.concat([sha256(rpId), Buffer.from([this.flags()]), uint32(credential.counter)]);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authenticatorData), signature: b64url(signature), userHandle: credential.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** A copy of this authenticator's passkeys on another device, as a passkey manager syncs them. */
  syncedTo(other: SoftAuthenticator): void {
    other.credentials.push(...this.credentials.map((credential) => ({ ...credential })));
  }

  private flags(): number {
    return UP | (this.verifies ? UV : 0) | (this.synced ? BE | BS : 0);
  }
}
