/** The WhatsApp channel (Cloud API): delivers interactive messages, listens at `GET`/`POST /webhooks/whatsapp`. */
import { type ChannelWebhookDefinition, defineChannel } from "../channel-descriptor.ts";
import { createWhatsappApi } from "./whatsapp-api.ts";
import { createWhatsappChannel } from "./whatsapp-channel.ts";
import { whatsappSignatureCheck } from "./whatsapp-signature.ts";
import { whatsappSpec } from "./whatsapp-spec.ts";
import { createWhatsappHandshake, createWhatsappWebhook } from "./whatsapp-webhook.ts";

export const whatsapp = defineChannel(whatsappSpec, {
  client: ({ settings, secret, now }) =>
    createWhatsappApi({
      apiBase: settings.apiBase,
      phoneNumberId: settings.phoneNumberId,
      accessToken: secret("whatsapp/access-token"),
      now,
    }),
  channel: (api, { settings, links }) => createWhatsappChannel(api, { links, template: settings.template }),
});

/** Its webhook, `POST /webhooks/whatsapp` and Meta's `GET` subscription check (functions/whatsapp-webhook.ts). */
export const whatsappWebhook: ChannelWebhookDefinition<typeof whatsapp> = {
  channel: whatsapp,
  // Meta documents no acknowledgement deadline beyond answering quickly, so the prelude sets none.
  create: (api, context) => ({
    prelude: whatsappSignatureCheck(context.secret("whatsapp/app-secret")),
    handler: createWhatsappWebhook({
      ...context,
      api,
      phoneNumberId: context.settings.phoneNumberId,
      template: context.settings.template,
    }),
    handshake: createWhatsappHandshake(context.secret("whatsapp/verify-token")),
  }),
};
