// Chart thumbnails as PNG. Rendered with @resvg/resvg-js: it rasterises SVG natively (Rust
// resvg, no browser or canvas), ships prebuilt binaries as npm optional dependencies for
// each platform, and downloads nothing at install time.

import type { Drawing } from '../domain/drawing.js';
import { DEFAULT_TARGET_PIXELS, thumbnailPicture } from '../domain/thumbnailSvg.js';

/** The thumbnail's width, or its height when the chart is taller than wide. */
export const THUMBNAIL_SIZE = DEFAULT_TARGET_PIXELS;

/**
 * resvg-js allocates with its own mimalloc, which keeps the pages a rendering freed (some
 * 100 MB for a 100,000-seat chart) committed until the same pool thread renders again: held
 * for good, one set per pool thread. With no purge delay it gives them back as they are
 * freed. mimalloc reads its options when the native module loads, hence the option first
 * and the module loaded on the first rendering (a value set from outside is kept).
 */
let resvg: Promise<typeof import('@resvg/resvg-js')> | undefined;
function loadResvg(): Promise<typeof import('@resvg/resvg-js')> {
  process.env.MIMALLOC_PURGE_DELAY ??= '0';
  return (resvg ??= import('@resvg/resvg-js'));
}

/**
 * Rasterises on libuv's thread pool (resvg's renderAsync): a 100,000-seat chart takes a few
 * hundred milliseconds, which must not stall the requests this process serves meanwhile.
 */
export async function renderThumbnail(drawing: Drawing): Promise<Buffer> {
  const { svg, width, height } = thumbnailPicture(drawing, THUMBNAIL_SIZE);
  const fitTo =
    height > width
      ? ({ mode: 'height', value: THUMBNAIL_SIZE } as const)
      : ({ mode: 'width', value: THUMBNAIL_SIZE } as const);
  const { renderAsync } = await loadResvg();
  // The picture has no text: skipping the system font scan saves most of the setup time.
  const image = await renderAsync(svg, { fitTo, font: { loadSystemFonts: false }, logLevel: 'off' });
  return image.asPng();
}
