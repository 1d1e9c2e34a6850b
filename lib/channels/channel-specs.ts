/**
 * Every channel's spec — name, owner format, settings, secrets — in the order they are listed and checked.
 * lib/config.ts, lib/questions and lib/secrets derive from this list; lib/channels/channel-list.ts lists the
 * same channels whole (their platform code), for the functions that deliver to them. A test holds the two
 * lists and the folders' manifest.json files (read by infra/deploy/secret-access.cjs) to the same channels.
 */
import { discordSpec } from "./discord/discord-spec.ts";
import { emailSpec } from "./email/email-spec.ts";
import { gchatSpec } from "./gchat/gchat-spec.ts";
import { mattermostSpec } from "./mattermost/mattermost-spec.ts";
import { slackSpec } from "./slack/slack-spec.ts";
import { teamsSpec } from "./teams/teams-spec.ts";
import { telegramSpec } from "./telegram/telegram-spec.ts";
import { whatsappSpec } from "./whatsapp/whatsapp-spec.ts";

export const CHANNEL_SPECS = [
  telegramSpec,
  slackSpec,
  discordSpec,
  mattermostSpec,
  teamsSpec,
  emailSpec,
  whatsappSpec,
  gchatSpec,
] as const;

export type ChannelSpecs = (typeof CHANNEL_SPECS)[number];
export type ChannelName = ChannelSpecs["name"];
/** Each channel's typed settings, by name. */
export type SettingsOf<Name extends ChannelName> = ReturnType<
  Extract<ChannelSpecs, { name: Name }>["config"]["settings"]
>;

export const CHANNEL_NAMES: readonly ChannelName[] = CHANNEL_SPECS.map((spec) => spec.name);

/** How long a claim on one of `channel`'s events is kept: longer than the platform sends an event again. */
export function eventClaimSeconds(channel: string): number {
  const days = CHANNEL_SPECS.find((spec) => spec.name === channel)?.manifest.redeliversForDays ?? 2;
  return days * 86_400;
}

/**
 * Whether `channel`'s chats can hold a group (its manifest's `groupChats`). A channel that is no module (the
 * local console, one person's terminal) holds none.
 */
export function hasGroupChats(channel: string): boolean {
  return CHANNEL_SPECS.find((spec) => spec.name === channel)?.manifest.groupChats === true;
}
