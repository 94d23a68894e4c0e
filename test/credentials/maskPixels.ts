import type { Page } from 'playwright-core';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** `style="…"` putting an absolutely positioned element at `r` (CSS px), so its region can be found in a screenshot. */
export const placedAt = (r: Rect): string =>
  `style="top:${r.y}px;left:${r.x}px;width:${r.width}px;height:${r.height}px"`;

/** Which pixels count as the mask colour: red and blue above `redBlueAbove`, green below `greenBelow`. */
export interface MagentaTest {
  redBlueAbove: number;
  greenBelow: number;
}
/** The default: JPEG blurs colours a little, so "magenta" is a tolerant test. */
export const TOLERANT_MAGENTA: MagentaTest = { redBlueAbove: 200, greenBelow: 60 };
/** Near-exact #FF00FF, for lossless PNG screenshots. */
export const EXACT_MAGENTA: MagentaTest = { redBlueAbove: 240, greenBelow: 16 };

/**
 * Share of the pixels in `rect` of an image (PNG or JPEG bytes) painted in the mask colour (#FF00FF),
 * decoded by a real Chromium page.
 */
export function maskedShare(
  viewer: Page,
  image: Buffer,
  rect: Rect,
  mediaType: 'image/png' | 'image/jpeg' = 'image/png',
  magentaTest: MagentaTest = TOLERANT_MAGENTA,
): Promise<number> {
  return viewer.evaluate(
    async ({ data, rect, mediaType, magentaTest: { redBlueAbove, greenBelow } }) => {
      const img = new Image();
      img.src = `data:${mediaType};base64,${data}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no 2d context');
      context.drawImage(img, 0, 0);
      const { data: pixels } = context.getImageData(rect.x, rect.y, rect.width, rect.height);
      let magenta = 0;
      for (let i = 0; i < pixels.length; i += 4)
        if (pixels[i]! > redBlueAbove && pixels[i + 1]! < greenBelow && pixels[i + 2]! > redBlueAbove) magenta += 1;
      return magenta / (rect.width * rect.height);
    },
    { data: image.toString('base64'), rect, mediaType, magentaTest },
  );
}
