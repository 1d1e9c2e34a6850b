/** Telegram updates as the Bot API delivers them to the webhook, for tests that answer through Telegram. */

let nextId = 9_000_000;

/**
 * A text message from `ownerId` in its private chat with the bot (where any text of the owner answers),
 * POSTed to the stack's Telegram webhook with the secret-token header.
 */
export function sendPrivateText(httpUrl: string, secret: string, ownerId: number, text: string) {
  return fetch(`${httpUrl}/webhooks/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
    body: JSON.stringify({
      update_id: ++nextId,
      message: {
        message_id: ++nextId,
        from: { id: ownerId, is_bot: false, first_name: "Ann" },
        chat: { id: ownerId, type: "private" },
        date: 1,
        text,
      },
    }),
  });
}
