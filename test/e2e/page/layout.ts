/**
 * What a person sees, not only what is in the DOM: the page at the four sizes it is judged at,
 * and assertions on boxes — an element is on screen when it has a box, lies wholly inside the
 * viewport, and is what the browser finds at its own points (nothing drawn over it); the typing box
 * covers nothing; the transcript shows its newest two lines and scrolls.
 */
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

export interface Viewport {
  name: string;
  width: number;
  height: number;
}

/** A laptop, a small laptop, a phone, a small phone. */
export const VIEWPORTS: readonly Viewport[] = [
  { name: 'laptop 1280×800', width: 1280, height: 800 },
  { name: 'small laptop 1024×640', width: 1024, height: 640 },
  { name: 'phone 390×844', width: 390, height: 844 },
  { name: 'small phone 360×640', width: 360, height: 640 },
];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Half a CSS pixel: boxes are fractional, and a border may sit on the viewport's edge. */
const SLACK_PX = 0.5;

async function boxOf(locator: Locator, what: string): Promise<Box> {
  const box = await locator.boundingBox();
  expect(box, `${what} has a box on the page`).not.toBeNull();
  return box as Box;
}

function overlapPx(a: Box, b: Box): { width: number; height: number } {
  return {
    width: Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x),
    height: Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y),
  };
}

/**
 * Waits until nothing on the page is mid-transition (a drawer sliding in, a bubble arriving), so
 * boxes are judged where they come to rest. Endless animations are no transition, and are let be.
 *
 * A Vue `<Transition>` inserts its element a frame before the browser's transition starts: in that
 * frame no animation runs yet and the drawer still sits off screen. So an element still carrying a
 * transition's enter or leave class is mid-transition too, started or not.
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document.querySelector('[class*="-enter-"], [class*="-leave-"]') === null &&
      document.getAnimations().every((animation) => animation.playState !== 'running' || animation.effect?.getComputedTiming().iterations === Number.POSITIVE_INFINITY),
    undefined,
    { polling: 'raf' },
  );
}

/**
 * Each of `elements` (named for a failure to say) is visible, has room, lies wholly inside the
 * viewport, and nothing is drawn over it: the browser's hit test at its centre and near its corners
 * finds it or something inside it. Judged once the page is still.
 */
export async function expectOnScreen(page: Page, elements: Record<string, Locator>): Promise<void> {
  const viewport = page.viewportSize();
  if (viewport === null) throw new Error('expectOnScreen needs a page with a fixed viewport.');
  await settled(page);
  for (const [what, locator] of Object.entries(elements)) {
    await expect(locator, `${what} is visible`).toBeVisible();
    const box = await boxOf(locator, what);
    expect(box.width, `${what} has width`).toBeGreaterThan(0);
    expect(box.height, `${what} has height`).toBeGreaterThan(0);
    expect(box.x, `${what} starts inside the viewport's left edge`).toBeGreaterThanOrEqual(-SLACK_PX);
    expect(box.y, `${what} starts below the viewport's top`).toBeGreaterThanOrEqual(-SLACK_PX);
    expect(box.x + box.width, `${what} ends inside the viewport's right edge (${String(viewport.width)} px)`).toBeLessThanOrEqual(viewport.width + SLACK_PX);
    expect(box.y + box.height, `${what} ends above the viewport's bottom (${String(viewport.height)} px)`).toBeLessThanOrEqual(viewport.height + SLACK_PX);
    const covered = await locator.evaluate((element) => {
      const rect = element.getBoundingClientRect();
      const inset = Math.min(4, rect.width / 4, rect.height / 4);
      const points = [
        [rect.left + rect.width / 2, rect.top + rect.height / 2],
        [rect.left + inset, rect.top + inset],
        [rect.right - inset, rect.top + inset],
        [rect.left + inset, rect.bottom - inset],
        [rect.right - inset, rect.bottom - inset],
      ] as const;
      return points
        .map(([x, y]) => {
          const hit = document.elementFromPoint(x, y);
          return hit === null || element.contains(hit) || hit.contains(element) ? null : `${hit.tagName.toLowerCase()}.${[...hit.classList].join('.')} at (${String(Math.round(x))}, ${String(Math.round(y))})`;
        })
        .filter((found) => found !== null);
    });
    expect(covered, `nothing is drawn over ${what}`).toEqual([]);
  }
}

/** No two of `elements` overlap (each named for a failure to say). */
export async function expectApart(elements: Record<string, Locator>): Promise<void> {
  const boxes = await Promise.all(Object.entries(elements).map(async ([what, locator]) => [what, await boxOf(locator, what)] as const));
  for (const [i, [what, box]] of boxes.entries()) {
    for (const [other, otherBox] of boxes.slice(i + 1)) {
      const overlap = overlapPx(box, otherBox);
      expect(overlap.width <= SLACK_PX || overlap.height <= SLACK_PX, `${what} and ${other} do not overlap (they share ${overlap.width.toFixed(1)} × ${overlap.height.toFixed(1)} px)`).toBe(true);
    }
  }
}

/** What the transcript shows, measured in the page: the log's box and the newest two lines' boxes. */
interface TranscriptView {
  scroller: { top: number; bottom: number; scrollTop: number; scrollHeight: number; clientHeight: number };
  lines: { top: number; bottom: number }[];
}

/** One line of the transcript's text, in px: the least of the second-newest line that must show. */
const ONE_LINE_PX = 16;

/**
 * The transcript has room: its newest line is shown to its last word (the log has scrolled to it)
 * and at least a line of text of the one before it shows too; the log itself is on screen and not
 * under the typing box; with more lines than fit, it scrolls.
 */
export async function expectNewestLinesSeen(page: Page): Promise<void> {
  const log = page.getByTestId('transcript');
  await expectOnScreen(page, { 'the transcript': log });
  const typing = page.getByTestId('typing');
  if ((await typing.count()) > 0) await expectApart({ 'the transcript': log, 'the typing box': typing });
  const measure = () =>
    log.evaluate((scroller): TranscriptView => {
      const box = scroller.getBoundingClientRect();
      const lines = [...scroller.querySelectorAll('li')].slice(-2).map((line) => {
        const rect = line.getBoundingClientRect();
        return { top: rect.top, bottom: rect.bottom };
      });
      return { scroller: { top: box.top, bottom: box.bottom, scrollTop: scroller.scrollTop, scrollHeight: scroller.scrollHeight, clientHeight: scroller.clientHeight }, lines };
    });
  // The log scrolls smoothly to a new line: wait for it to arrive, never for a fixed time.
  await expect
    .poll(async () => {
      const { scroller, lines } = await measure();
      const newest = lines.at(-1);
      const before = lines.at(-2);
      if (newest === undefined) return 'no line in the transcript';
      if (newest.bottom > scroller.bottom + SLACK_PX) return `the newest line ends ${(newest.bottom - scroller.bottom).toFixed(0)} px below the log`;
      if (newest.top < scroller.top - SLACK_PX && newest.bottom - newest.top <= scroller.bottom - scroller.top) return 'the newest line starts above the log though it would fit';
      if (before !== undefined) {
        const shown = Math.min(before.bottom, scroller.bottom) - Math.max(before.top, scroller.top);
        if (shown < ONE_LINE_PX) return `only ${shown.toFixed(0)} px of the line before the newest shows`;
      }
      return 'seen';
    })
    .toBe('seen');
}

/** The transcript holds more than it shows, and scrolls: to its first line and back to its newest. */
export async function expectTranscriptScrolls(page: Page): Promise<void> {
  const log = page.getByTestId('transcript');
  const sizes = await log.evaluate((scroller) => ({ scrollHeight: scroller.scrollHeight, clientHeight: scroller.clientHeight, overflow: getComputedStyle(scroller).overflowY }));
  expect(sizes.overflow).toBe('auto');
  expect(sizes.scrollHeight, 'the conversation is longer than the log shows').toBeGreaterThan(sizes.clientHeight);
  const first = log.locator('li').first();
  await first.scrollIntoViewIfNeeded();
  await expect(first).toBeInViewport();
  await log.evaluate((scroller) => {
    scroller.scrollTop = scroller.scrollHeight;
  });
  await expect(log.locator('li').last()).toBeInViewport();
}
