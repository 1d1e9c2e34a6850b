/**
 * Every channel, whole (its platform code): for the functions that deliver to every enabled one (ask, the
 * question API, /mcp, the timers, the stream consumer). A webhook imports its own channel's descriptor only,
 * and the answer page none, so their bundles carry no other platform's code. The same channels, in the same
 * order, as lib/channels/channel-specs.ts (test/unit/channels/channel-list.test.ts).
 */
import type { AnyChannel } from "./channel-descriptor.ts";
import { discord } from "./discord/index.ts";
import { email } from "./email/index.ts";
import { gchat } from "./gchat/index.ts";
import { mattermost } from "./mattermost/index.ts";
import { slack } from "./slack/index.ts";
import { teams } from "./teams/index.ts";
import { telegram } from "./telegram/index.ts";
import { whatsapp } from "./whatsapp/index.ts";

export const CHANNELS: readonly AnyChannel[] = [
  telegram,
  slack,
  discord,
  mattermost,
  teams,
  email,
  whatsapp,
  gchat,
];
