/**
 * The value schemas settings share: lib/config.ts's own and the channels' slices
 * (lib/channels/<name>/<name>-spec.ts). Light: zod and the URL rule, nothing else.
 */
import { isHttpsOrLoopback } from "./http/outbound.ts";
import { ruleMessage } from "./validation-messages.ts";
import * as z from "./zod.ts";

export const httpUrl = z.url({ protocol: /^https?$/, error: ruleMessage("must be an http(s) URL") });

/** An endpoint that is sent credentials (an app token) or that vouches for them (a key set). */
export const credentialUrl = httpUrl.check(
  z.refine(isHttpsOrLoopback, {
    error: ruleMessage("must be an https URL (http only on localhost / 127.0.0.1 / [::1])"),
  }),
);
