/**
 * The browser's side of a passkey ceremony (WebAuthn, through @simplewebauthn/browser): make one
 * from the server's creation options, or use one from its request options. The server checks what
 * comes back; this adapter decides nothing. A ceremony that fails is a `PasskeyError` whose message
 * is a sentence for the person.
 */
import { WebAuthnError, browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { sayWord } from './words';

/** A passkey could not be made or used here. */
class PasskeyError extends Error {
  override readonly name = 'PasskeyError';
}

export interface PasskeyCeremonies {
  /** Whether this browser can make and use passkeys on this page (a secure context with WebAuthn). */
  here(): boolean;
  make(optionsJSON: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON>;
  use(optionsJSON: PublicKeyCredentialRequestOptionsJSON): Promise<AuthenticationResponseJSON>;
}

export function passkeyCeremonies(): PasskeyCeremonies {
  return {
    here: () => browserSupportsWebAuthn(),
    async make(optionsJSON) {
      try {
        return await startRegistration({ optionsJSON });
      } catch (cause) {
        throw passkeyError(cause);
      }
    },
    async use(optionsJSON) {
      try {
        return await startAuthentication({ optionsJSON });
      } catch (cause) {
        throw passkeyError(cause);
      }
    },
  };
}

/** The person cancelled, or the browser gave up waiting for them (both `NotAllowedError`); else it failed. */
function passkeyError(cause: unknown): PasskeyError {
  const name = cause instanceof WebAuthnError ? (cause.cause as { name?: unknown } | undefined)?.name : cause instanceof Error ? cause.name : undefined;
  const cancelled = name === 'NotAllowedError' || name === 'AbortError' || (cause instanceof WebAuthnError && cause.code === 'ERROR_CEREMONY_ABORTED');
  return new PasskeyError(sayWord(cancelled ? 'page-people.cancelled' : 'page-people.passkey-failed'), { cause });
}
