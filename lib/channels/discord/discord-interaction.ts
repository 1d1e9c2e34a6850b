/**
 * Discord interaction objects → what Handraise reads of them. Only the fields Handraise uses are parsed;
 * snowflakes stay strings (they are 64-bit).
 */
import * as z from "../../zod.ts";

export const InteractionType = {
  PING: 1,
  APPLICATION_COMMAND: 2,
  MESSAGE_COMPONENT: 3,
  MODAL_SUBMIT: 5,
} as const;

const snowflake = z.string().check(z.regex(/^\d{1,20}$/));
const int = z.number().check(z.int());
/** A string of at most `max` UTF-16 code units. */
const text = (max: number) => z.string().check(z.maxLength(max));
const userSchema = z.object({ id: snowflake });
const textInputSchema = z.object({
  type: int,
  custom_id: z.optional(text(100)),
  value: z.optional(text(4000)),
});
/** A submitted modal row: legacy action row (type 1) or Label (type 18) around its input. */
const modalRowSchema = z.object({
  type: int,
  components: z.optional(z.array(textInputSchema).check(z.maxLength(5))),
  component: z.optional(textInputSchema),
});

export const interactionSchema = z.object({
  id: snowflake,
  type: int,
  channel_id: z.optional(snowflake),
  channel: z.optional(z.object({ id: snowflake })),
  /** In a guild: the member who acted, with their user. */
  member: z.optional(z.object({ user: userSchema })),
  /** In a DM (or a group DM). */
  user: z.optional(userSchema),
  /** For components (and modals opened from one): the message the component is on. */
  message: z.optional(z.object({ id: snowflake, components: z.optional(z.array(z.unknown())) })),
  data: z.optional(
    z.object({
      custom_id: z.optional(text(100)),
      component_type: z.optional(int),
      values: z.optional(z.array(text(100)).check(z.maxLength(25))),
      name: z.optional(text(32)),
      options: z.optional(
        z
          .array(z.object({ name: text(32), type: int, value: z.optional(z.unknown()) }))
          .check(z.maxLength(25)),
      ),
      components: z.optional(z.array(modalRowSchema).check(z.maxLength(5))),
    }),
  ),
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
