/**
 * A browser on a device, for the server tests of people and devices: its own cookie jar, its page's
 * origin and User-Agent, and its authenticator — so a test reads as what a person does on each of
 * their devices (`laptop.register()`, `phone.signIn()`, `phone.link(code)`).
 */
import type { Hono } from 'hono';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Me } from '../../common/people';
import { SoftAuthenticator } from './softAuthenticator';

const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const SAFARI_ON_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

export interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export class PasskeyDevice {
  /** The cookies this browser holds for the site, by name. */
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly request: Hono['request'],
    readonly origin = 'http://localhost:8787',
    readonly userAgent = CHROME_ON_LINUX,
    readonly authenticator = new SoftAuthenticator(),
  ) {}

  /** A request from this device's page, keeping the cookies the answer sets as a browser does. */
  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const headers: Record<string, string> = { origin: this.origin, host: new URL(this.origin).host, 'user-agent': this.userAgent };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.request(`${this.origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split('; ');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      if (attributes.some((attribute) => attribute.toLowerCase() === 'max-age=0')) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1));
    }
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T, headers: res.headers };
  }

  /** The registration ceremony's two requests, with this device's authenticator between them. */
  async register(): Promise<Answer<Me>> {
    const options = await this.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/api/passkeys/register/options');
    if (options.status !== 200) return options as unknown as Answer<Me>;
    return this.finishRegistering(this.authenticator.register(options.body, this.origin));
  }

  finishRegistering(response: RegistrationResponseJSON): Promise<Answer<Me>> {
    return this.call<Me>('POST', '/api/passkeys/register/verify', { response });
  }

  /** The sign-in ceremony's options and this device's authenticator's answer to them, not yet sent. */
  async assertion(): Promise<AuthenticationResponseJSON> {
    const options = await this.call<PublicKeyCredentialRequestOptionsJSON>('POST', '/api/passkeys/sign-in/options');
    if (options.status !== 200) throw new Error(`sign-in options answered ${String(options.status)}`);
    return this.authenticator.signIn(options.body, this.origin);
  }

  finishSigningIn(response: AuthenticationResponseJSON): Promise<Answer<Me>> {
    return this.call<Me>('POST', '/api/passkeys/sign-in/verify', { response });
  }

  async signIn(): Promise<Answer<Me>> {
    return this.finishSigningIn(await this.assertion());
  }

  me(): Promise<Answer<Me>> {
    return this.call<Me>('GET', '/api/me');
  }
}
