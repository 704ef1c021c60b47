/**
 * The drawer's "You", the link page and the name page, composed: the person on every device over
 * the page's own API, the browser's passkey ceremonies, this device's clock and clipboard, and
 * starting over when this device stops being its person. The views take a `PeoplePort`; tests
 * give their own.
 */
import { renderSVG } from 'uqr';
import type { Devices, LinkCode, Me, NameInvite, Usage } from '../../common/people';
import { EXPORT_FILE_NAME } from '../../common/people';
import { fetchPageConfig } from '../platform/apiClient';
import { passkeyCeremonies } from '../platform/passkeys';
import { peopleApi } from '../platform/peopleApi';
import { startOver } from '../platform/startOver';
import { personChanged } from './personChanged';

/** Whether this device was signed out from another of the person's, and the moment it learns so, for any view. */
export { onSignedOut, wasSignedOut } from '../platform/signedOut';
export type { DeviceListed, Devices, LinkCode, Me, NameInvite, PasskeyListed, Usage, WindowUse } from '../../common/people';

/** The views' clock: time left on a code, when a window frees up. */
interface PeopleClock {
  nowMs(): number;
  /** Runs `run` every `intervalMs` until the answer is called. */
  every(intervalMs: number, run: () => void): () => void;
}

export interface PeoplePort {
  me(): Promise<Me>;
  /** Whether this browser can make and use passkeys on this page. */
  passkeysHere(): boolean;
  /** Makes a passkey for this person ("Keep this on your devices"). */
  keepOnDevices(): Promise<Me>;
  /** Signs this device in with a passkey of the person's; the page then loads as them (`reload`). */
  signInWithPasskey(): Promise<Me>;
  /** Makes this device the person who showed `code` on another. */
  enterCode(code: string): Promise<Me>;
  devices(): Promise<Devices>;
  removePasskey(id: string): Promise<void>;
  removeDevice(id: string): Promise<void>;
  /** Signs this device out, and starts over. */
  signOut(): Promise<void>;
  linkCode(): Promise<LinkCode>;
  nameInvite(name: string): Promise<NameInvite>;
  acceptInvite(token: string): Promise<Me>;
  /** What the person's talk has cost, the spans counted in this device's time zone. */
  usage(): Promise<Usage>;
  /** Downloads everything the person has, as one file. */
  download(): Promise<void>;
  /** Forgets the person (confirmed by the bot's name as they typed it), and starts over as a newcomer. */
  forget(typed: string, bot: string): Promise<void>;
  /** Loads the page again, as whoever this device is now. */
  reload(): void;
  /** `text` as a QR code, an SVG image's URL (an `img` shows it: nothing in it runs). */
  qrImage(text: string): string;
  copy(text: string): Promise<void>;
  clock: PeopleClock;
}

/** The real port over `fetcher` (the session's fetch; default the global one). */
export function peoplePort(fetcher?: typeof fetch): PeoplePort {
  const api = peopleApi(fetcher);
  const passkeys = passkeyCeremonies();
  return {
    // Supabase mode signs people in its own way: passkeys are never mixed in, nor asked about.
    me: async () => ((await fetchPageConfig()).auth?.kind === 'supabase' ? { kind: 'supabase', owner: false, name: null } : api.me()),
    passkeysHere: () => passkeys.here(),
    async keepOnDevices() {
      const me = await api.registerVerify(await passkeys.make(await api.registerOptions()));
      personChanged();
      return me;
    },
    async signInWithPasskey() {
      return api.signInVerify(await passkeys.use(await api.signInOptions()));
    },
    enterCode: (code) => api.link(code.trim().toUpperCase()),
    devices: () => api.devices(),
    removePasskey: (id) => api.removePasskey(id),
    removeDevice: (id) => api.removeDevice(id),
    async signOut() {
      await api.signOut();
      await startOver();
    },
    linkCode: () => api.linkCode(),
    nameInvite: (name) => api.nameInvite(name),
    acceptInvite: (token) => api.acceptInvite(token),
    usage: () => api.usage(Intl.DateTimeFormat().resolvedOptions().timeZone),
    async download() {
      const url = URL.createObjectURL(await api.exportFile());
      const link = document.createElement('a');
      link.href = url;
      link.download = EXPORT_FILE_NAME;
      link.click();
      // The browser has taken the file once the click is handled.
      setTimeout(() => {
        URL.revokeObjectURL(url);
      }, 0);
    },
    async forget(typed, bot) {
      await api.forget(typed, bot);
      await startOver();
    },
    reload: () => {
      location.reload();
    },
    qrImage: (text) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(text, { border: 2 }))}`,
    copy: (text) => navigator.clipboard.writeText(text),
    clock: {
      nowMs: () => Date.now(),
      every(intervalMs, run) {
        const timer = setInterval(run, intervalMs);
        return () => {
          clearInterval(timer);
        };
      },
    },
  };
}
