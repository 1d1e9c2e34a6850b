/** WhatsApp webhook notifications as Meta sends them (`entry[].changes[].value`). */

/** A notification to the business number `phoneNumberId` whose value holds `value` (messages, statuses). */
export function whatsappNotification<Value extends Record<string, unknown>>(
  value: Value,
  phoneNumberId: string,
) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

/** A notification of `statuses` of messages the business number `phoneNumberId` sent. */
export const statusNotification = (statuses: Record<string, unknown>[], phoneNumberId: string) =>
  whatsappNotification({ statuses }, phoneNumberId);

/**
 * The `failed` status of message `wamid` to `recipient`: by default error 131047, WhatsApp's closed 24-hour
 * window, as the Cloud API reports a free-form message it took (200) outside the window.
 */
export function failedStatus(
  wamid: string,
  recipient: string,
  options: { code?: number | undefined; callbackData?: string | undefined } = {},
): Record<string, unknown> {
  const code = options.code ?? 131047;
  return {
    id: wamid,
    status: "failed",
    timestamp: "1749416383",
    recipient_id: recipient,
    ...(options.callbackData !== undefined && { biz_opaque_callback_data: options.callbackData }),
    errors: [
      {
        code,
        title: code === 131047 ? "Re-engagement message" : "Message undeliverable",
        message: code === 131047 ? "Re-engagement message" : "Message undeliverable",
        error_data: { details: "More than 24 hours have passed since the recipient last replied." },
        href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
      },
    ],
  };
}
