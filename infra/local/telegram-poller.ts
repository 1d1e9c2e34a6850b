/**
 * Local only: a real Telegram bot cannot call a webhook on this machine, so the demo long-polls
 * `getUpdates` and hands each update to the local webhook route exactly as Telegram would (same JSON, same
 * secret header). The webhook handler is the deployed one.
 */
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";

export interface TelegramPoller {
  stop(): void;
}

export function startTelegramPoller(options: {
  apiBase: string;
  botToken: string;
  webhookUrl: string;
  secret: string;
  onError: (message: string) => void;
}): TelegramPoller {
  const api = createTelegramApi({
    apiBase: options.apiBase,
    botToken: async () => options.botToken,
    now: Date.now,
  });
  let stopped = false;
  let offset: number | undefined;

  async function loop(): Promise<void> {
    while (!stopped) {
      try {
        // Short polls (the API client bounds every call): the demo stops promptly on Ctrl-C.
        const updates = await api.call<{ update_id: number }[]>("getUpdates", {
          timeout: 1,
          allowed_updates: ["message", "callback_query"],
          ...(offset !== undefined && { offset }),
        });
        for (const update of updates) {
          offset = update.update_id + 1;
          const response = await fetch(options.webhookUrl, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-telegram-bot-api-secret-token": options.secret,
            },
            body: JSON.stringify(update),
          });
          if (!response.ok) {
            options.onError(
              `The local Telegram webhook answered ${response.status}: ${await response.text()}`,
            );
          }
        }
      } catch (error) {
        options.onError(
          `Telegram polling failed (${error instanceof Error ? error.message : String(error)}). ` +
            "If the bot has a webhook set, getUpdates is refused: remove it with deleteWebhook to use the demo.",
        );
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
  }
  void loop();
  return {
    stop: () => {
      stopped = true;
    },
  };
}
