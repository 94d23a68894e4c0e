import { z } from 'zod';
import { HttpUrl } from './common.ts';

export const LiveViewParams = z.object({ token: z.string().min(1).max(200) });

const Coordinate = z.number().min(-100_000).max(100_000);
/** Alt=1, Ctrl=2, Meta=4, Shift=8 (the CDP bitmask). */
const Modifiers = z.int().min(0).max(15).optional();

/** A pointer event in page CSS pixels; `click` is move + press + release at one point. */
export const LiveMouseInput = z.strictObject({
  kind: z.literal('mouse'),
  type: z.enum(['mousePressed', 'mouseReleased', 'mouseMoved', 'click']),
  x: Coordinate,
  y: Coordinate,
  button: z.enum(['none', 'left', 'middle', 'right', 'back', 'forward']).optional(),
  buttons: z.int().min(0).max(31).optional().describe('Buttons held: left=1, right=2, middle=4'),
  clickCount: z.int().min(0).max(3).optional(),
  modifiers: Modifiers,
});

export const LiveWheelInput = z.strictObject({
  kind: z.literal('wheel'),
  x: Coordinate,
  y: Coordinate,
  deltaX: Coordinate,
  deltaY: Coordinate,
  modifiers: Modifiers,
});

/** A key event; `text` on keyDown makes a character appear; `keyCode` is the DOM keyCode (needed for Enter, Backspace, arrows). */
export const LiveKeyInput = z.strictObject({
  kind: z.literal('key'),
  type: z.enum(['keyDown', 'keyUp', 'char']),
  key: z.string().min(1).max(32),
  code: z.string().max(32).optional(),
  text: z.string().max(8).optional(),
  keyCode: z.int().min(0).max(255).optional(),
  modifiers: Modifiers,
});

/** Text inserted as if pasted (no key events). */
export const LiveTextInput = z.strictObject({
  kind: z.literal('text'),
  text: z.string().min(1).max(10_000),
});

/**
 * The browser's own controls: open an address (http or https only), go back or forward, reload, or
 * just read where the page is (`where`). The answer carries the page's address afterwards.
 */
export const LiveNavigationInput = z
  .strictObject({
    kind: z.literal('navigation'),
    action: z.enum(['goto', 'back', 'forward', 'reload', 'where']),
    url: HttpUrl.optional(),
  })
  .refine((input) => input.action !== 'goto' || input.url !== undefined, {
    message: 'is required to go to an address',
    path: ['url'],
  });

/** POST /live/{token}/input: one input event for the page behind a live view. */
export const LiveInput = z.discriminatedUnion('kind', [
  LiveMouseInput,
  LiveWheelInput,
  LiveKeyInput,
  LiveTextInput,
  LiveNavigationInput,
]);
export type LiveInput = z.infer<typeof LiveInput>;

export const LiveInputAccepted = z.object({
  ok: z.literal(true),
  /** The page's address after a navigation input. */
  url: z.string().optional(),
});

/** The JSON of each `frame` event of GET /live/{token}/frames. */
export const LiveFrame = z.object({
  data: z.string().describe('Base64 image'),
  format: z.enum(['jpeg', 'png']),
  deviceWidth: z.number().describe('Page width in CSS pixels; input coordinates use this space'),
  deviceHeight: z.number(),
  pageScaleFactor: z.number(),
  offsetTop: z.number(),
  scrollOffsetX: z.number(),
  scrollOffsetY: z.number(),
  timestamp: z.number().optional(),
});
