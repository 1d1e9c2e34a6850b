import { replies } from "../replies.ts";
import type { DiscordApi } from "./discord-api.ts";

const CHAT_INPUT = 1;
const STRING = 3;

/**
 * The application commands Handraise answers. `/question` without an argument posts the waiting question
 * again; with `answer:` it answers it as a typed reply would (a number, an option, or free text) — the way to
 * type an answer, since plain messages never reach an interactions endpoint.
 */
export const DISCORD_COMMANDS = [
  {
    name: "question",
    type: CHAT_INPUT,
    description: replies.questionOrAnswerCommandAbout,
    options: [
      {
        name: "answer",
        type: STRING,
        description: replies.answerOptionAbout,
        required: false,
        max_length: 2000,
      },
    ],
  },
  { name: "cancel", type: CHAT_INPUT, description: replies.cancelCommandAbout },
];

/**
 * Registers the commands (bulk overwrite: re-running replaces them, nothing piles up). Global commands by
 * default; with a guild id, for that guild only (they appear at once there — handy while trying it out).
 */
export async function registerDiscordCommands(
  api: DiscordApi,
  options: { applicationId: string; guildId?: string | undefined },
): Promise<{ name: string }[]> {
  const snowflake = /^\d{1,20}$/;
  if (!snowflake.test(options.applicationId)) throw new Error("DISCORD_APPLICATION_ID must be a numeric id");
  if (options.guildId !== undefined && !snowflake.test(options.guildId))
    throw new Error("the guild id must be a numeric id");
  const path =
    options.guildId === undefined
      ? `/applications/${options.applicationId}/commands`
      : `/applications/${options.applicationId}/guilds/${options.guildId}/commands`;
  return api.request<{ name: string }[]>("PUT", path, DISCORD_COMMANDS);
}

/** The Interactions Endpoint URL from the stack's `DiscordWebhookUrl` or `HttpApiUrl` output. */
export function interactionsEndpointUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  if (!trimmed.startsWith("https://")) throw new Error("Discord only calls https:// endpoints");
  return trimmed.endsWith("/webhooks/discord") ? trimmed : `${trimmed}/webhooks/discord`;
}
