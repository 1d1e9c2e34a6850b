/** E-mail's spec: its manifest (owner; no secrets) and its one setting, the sender. */
import { ruleMessage } from "../../validation-messages.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

/** An address as a mail header takes it (the sender) or a target names it: one `@`, no whitespace. */
export const EMAIL_ADDRESS = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export const emailSpec = defineSpec({
  name: "email",
  manifest: manifest as ChannelManifest,
  config: {
    variables: {
      /** The address mails are sent from: an identity SES has verified (deployed: the `emailFrom` parameter). */
      HANDRAISE_EMAIL_FROM: z.optional(
        z.string().check(z.regex(EMAIL_ADDRESS, { error: ruleMessage("must be an e-mail address") })),
      ),
    },
    settings: (env, need) => ({ from: need("HANDRAISE_EMAIL_FROM", env.HANDRAISE_EMAIL_FROM) }),
  },
});
