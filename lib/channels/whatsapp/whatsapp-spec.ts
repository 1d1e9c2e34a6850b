/** WhatsApp's spec (Cloud API): its manifest (owner, secrets) and its settings. */
import { credentialUrl } from "../../config-values.ts";
import { ruleMessage } from "../../validation-messages.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

/** `name:language`: a message template's name (lower-case, digits, `_`) and its language code (`en`, `en_US`). */
const TEMPLATE = /^([a-z0-9_]{1,512}):([a-z]{2,3}(?:_[A-Za-z0-9]{2,4})?)$/;

/** A message template approved in the WhatsApp Manager, sent when the 24-hour window is closed. */
export interface WhatsappTemplate {
  name: string;
  language: string;
}

export interface WhatsappSettings {
  /** The Graph API with its version (`https://graph.facebook.com/v21.0`), or a local fake of it. */
  apiBase: string;
  /** The business phone number's id (not the number): messages are sent as `POST /<it>/messages`. */
  phoneNumberId: string;
  template: WhatsappTemplate | undefined;
}

export const whatsappSpec = defineSpec({
  name: "whatsapp",
  manifest: manifest as ChannelManifest,
  config: {
    variables: {
      WHATSAPP_API_BASE: z._default(credentialUrl, "https://graph.facebook.com/v21.0"),
      /** WhatsApp Manager → API Setup → Phone number ID. */
      WHATSAPP_PHONE_NUMBER_ID: z.optional(
        z.string().check(z.regex(/^\d{1,32}$/, { error: ruleMessage("must be a phone number id (digits)") })),
      ),
      WHATSAPP_TEMPLATE: z.optional(
        z.string().check(
          z.regex(TEMPLATE, {
            error: ruleMessage("must be <template name>:<language code>, e.g. question_waiting:en"),
          }),
        ),
      ),
    },
    settings: (env, need): WhatsappSettings => {
      const template = env.WHATSAPP_TEMPLATE === undefined ? undefined : TEMPLATE.exec(env.WHATSAPP_TEMPLATE);
      return {
        apiBase: env.WHATSAPP_API_BASE,
        phoneNumberId: need("WHATSAPP_PHONE_NUMBER_ID", env.WHATSAPP_PHONE_NUMBER_ID),
        template: template ? { name: template[1] as string, language: template[2] as string } : undefined,
      };
    },
  },
});
