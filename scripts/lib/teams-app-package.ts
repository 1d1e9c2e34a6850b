/**
 * The Teams app package `npm run teams:manifest` writes: a zip of `manifest.json` and the two icons Teams
 * requires, drawn here (a raised hand) so the repository needs no image files — `color.png`, 192×192, the
 * hand in white on the accent colour; `outline.png`, 32×32, the hand in white on transparent.
 */
import { strToU8, zipSync } from "fflate";
import {
  TEAMS_COLOR_ICON,
  TEAMS_OUTLINE_ICON,
  type TeamsManifestOptions,
  teamsManifest,
} from "../../lib/channels/teams/teams-manifest.ts";
import { encodePng } from "./png.ts";

type Rgb = readonly [number, number, number];
const WHITE: Rgb = [255, 255, 255];

/** The zip to upload, and the manifest it holds. */
export function buildTeamsAppPackage(options: TeamsManifestOptions): {
  zip: Uint8Array;
  manifest: ReturnType<typeof teamsManifest>;
} {
  const manifest = teamsManifest(options);
  const accent = rgbOf(manifest.accentColor);
  const zip = zipSync({
    "manifest.json": strToU8(`${JSON.stringify(manifest, null, 2)}\n`),
    [TEAMS_COLOR_ICON.file]: drawHand(TEAMS_COLOR_ICON.size, 0.56, accent),
    [TEAMS_OUTLINE_ICON.file]: drawHand(TEAMS_OUTLINE_ICON.size, 0.9),
  });
  return { zip, manifest };
}

function rgbOf(hex: string): Rgb {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

/**
 * The hand, as shapes in a 32-unit square: four fingers and a thumb (capsules) on a palm (a rounded box).
 * Each returns a signed distance: negative inside.
 */
const FINGERS: readonly [x: number, top: number, radius: number][] = [
  [11.6, 8.2, 1.45],
  [14.9, 6.6, 1.45],
  [18.2, 7.6, 1.45],
  [21.3, 9.8, 1.3],
];
const HAND_BOX = { left: 4.8, top: 4.9, right: 22.7, bottom: 26.2 };

function handDistance(x: number, y: number): number {
  let distance = roundedBox(x, y, 16.4, 20.6, 6.3, 5.6, 3);
  for (const [fx, top, radius] of FINGERS)
    distance = Math.min(distance, capsule(x, y, fx, top, fx, 17, radius));
  return Math.min(distance, capsule(x, y, 10.4, 21.5, 6.4, 15.6, 1.6));
}

function capsule(
  x: number,
  y: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  radius: number,
): number {
  const [px, py, dx, dy] = [x - ax, y - ay, bx - ax, by - ay];
  const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - dx * t, py - dy * t) - radius;
}

function roundedBox(x: number, y: number, cx: number, cy: number, hw: number, hh: number, r: number): number {
  const qx = Math.abs(x - cx) - hw + r;
  const qy = Math.abs(y - cy) - hh + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

/** Samples per pixel side: the edges are anti-aliased by coverage. */
const SUPERSAMPLE = 4;

/**
 * A `size`×`size` PNG of the white hand, `height` (a fraction of the side) tall and centred, on `background`
 * (opaque), or on transparent when there is none.
 */
export function drawHand(size: number, height: number, background?: Rgb): Buffer {
  const scale = (size * height) / (HAND_BOX.bottom - HAND_BOX.top);
  const offsetX = size / 2 - ((HAND_BOX.left + HAND_BOX.right) / 2) * scale;
  const offsetY = size / 2 - ((HAND_BOX.top + HAND_BOX.bottom) / 2) * scale;
  const pixels = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let inside = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const x = (px + (sx + 0.5) / SUPERSAMPLE - offsetX) / scale;
          const y = (py + (sy + 0.5) / SUPERSAMPLE - offsetY) / scale;
          if (handDistance(x, y) < 0) inside++;
        }
      }
      const coverage = inside / (SUPERSAMPLE * SUPERSAMPLE);
      const at = (py * size + px) * 4;
      if (background) {
        for (let c = 0; c < 3; c++) {
          pixels[at + c] = Math.round((background[c] ?? 0) * (1 - coverage) + (WHITE[c] ?? 0) * coverage);
        }
        pixels[at + 3] = 255;
      } else {
        pixels.set(WHITE, at);
        pixels[at + 3] = Math.round(255 * coverage);
      }
    }
  }
  return encodePng(size, size, pixels);
}
