/**
 * Discord interaction objects → what Handraise reads of them. Only the fields Handraise uses are parsed;
 * snowflakes stay strings (they are 64-bit).
 */
import { z } from "zod";

export const InteractionType = {
  PING: 1,
  APPLICATION_COMMAND: 2,
  MESSAGE_COMPONENT: 3,
  MODAL_SUBMIT: 5,
} as const;

const snowflake = z.string().regex(/^\d{1,20}$/);
const userSchema = z.object({ id: snowflake });
const textInputSchema = z.object({
  type: z.number().int(),
  custom_id: z.string().max(100).optional(),
  value: z.string().max(4000).optional(),
});
/** A submitted modal row: legacy action row (type 1) or Label (type 18) around its input. */
const modalRowSchema = z.object({
  type: z.number().int(),
  components: z.array(textInputSchema).max(5).optional(),
  component: textInputSchema.optional(),
});

export const interactionSchema = z.object({
  id: snowflake,
  type: z.number().int(),
  channel_id: snowflake.optional(),
  channel: z.object({ id: snowflake }).optional(),
  /** In a guild: the member who acted, with their user. */
  member: z.object({ user: userSchema }).optional(),
  /** In a DM (or a group DM). */
  user: userSchema.optional(),
  /** For components (and modals opened from one): the message the component is on. */
  message: z.object({ id: snowflake, components: z.array(z.unknown()).optional() }).optional(),
  data: z
    .object({
      custom_id: z.string().max(100).optional(),
      component_type: z.number().int().optional(),
      values: z.array(z.string().max(100)).max(25).optional(),
      name: z.string().max(32).optional(),
      options: z
        .array(z.object({ name: z.string().max(32), type: z.number().int(), value: z.unknown().optional() }))
        .max(25)
        .optional(),
      components: z.array(modalRowSchema).max(5).optional(),
    })
    .optional(),
});
export type Interaction = z.infer<typeof interactionSchema>;

/** `discord:<user id>` of whoever acted: `member.user` in guilds, `user` in DMs. */
export function actorOf(interaction: Interaction): string | undefined {
  const id = interaction.member?.user.id ?? interaction.user?.id;
  return id === undefined ? undefined : `discord:${id}`;
}

export function channelOf(interaction: Interaction): string | undefined {
  return interaction.channel_id ?? interaction.channel?.id;
}

/** The text inputs of a submitted modal, by custom_id. */
export function modalFields(interaction: Interaction): Map<string, string> {
  const fields = new Map<string, string>();
  for (const row of interaction.data?.components ?? []) {
    for (const input of [...(row.components ?? []), ...(row.component ? [row.component] : [])]) {
      if (input.custom_id !== undefined && input.value !== undefined)
        fields.set(input.custom_id, input.value);
    }
  }
  return fields;
}

/** The string option `name` of a slash command, if given. */
export function commandOption(interaction: Interaction, name: string): string | undefined {
  const option = interaction.data?.options?.find((o) => o.name === name);
  return typeof option?.value === "string" ? option.value : undefined;
}

/** The chosen option indexes of a string select (`values` are the option positions), in order, once each. */
export function selectedIndexes(values: readonly string[] | undefined): number[] {
  const indexes = (values ?? []).filter((value) => /^\d$/.test(value)).map(Number);
  return [...new Set(indexes)].sort((a, b) => a - b);
}
