/**
 * Who may answer, as a pattern: `<platform>:<id>`, the platform one of the channels (lib/channels/channel-specs.ts)
 * or the two that are not chat channels — `web:<name>` (a person on the answer page) and `console:<name>`
 * (the local stack's console channel). Each channel's manifest may narrow its id (`owner.idPattern`);
 * otherwise any id without whitespace.
 */
import { CHANNEL_SPECS } from "./channel-specs.ts";

const ANY_ID = "\\S+";

/** Platforms of owners that are not channels of the list. */
const OTHER_OWNERS = [
  { name: "web", example: "web:alice" },
  { name: "console", example: "console:me" },
];

const alternatives = [
  ...CHANNEL_SPECS.map((spec) => `${spec.name}:(?:${spec.manifest.owner.idPattern ?? ANY_ID})`),
  ...OTHER_OWNERS.map((other) => `${other.name}:${ANY_ID}`),
];

export const OWNER_PATTERN = new RegExp(`^(?:${alternatives.join("|")})$`);

/** The owner examples error messages show: the first two channels' and the answer page's. */
export const OWNER_EXAMPLES = [
  ...CHANNEL_SPECS.slice(0, 2).map((spec) => `"${spec.manifest.owner.example}"`),
  `or "${OTHER_OWNERS[0]?.example}"`,
]
  .join(", ")
  .replace(", or", " or");
