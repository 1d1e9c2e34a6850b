/**
 * What each platform refuses (or silently cuts), in one table: the numbers every renderer fits its payloads
 * to (./fit.ts), and the ones the tests' fake platforms refuse beyond. Each is the platform's documented
 * limit, in the unit the platform counts (docs/channels.md, "Sizes").
 */

export const PLATFORM_LIMITS = {
  telegram: {
    /** `sendMessage` / `editMessageText` text, characters after entity parsing (counted as UTF-16 units). */
    text: 4096,
    /** An inline button's `callback_data`, in bytes. */
    callbackDataBytes: 64,
    /** `answerCallbackQuery` text. */
    callbackAnswer: 200,
  },
  slack: {
    /** Blocks in one message. */
    blocks: 50,
    /** A section block's text. */
    sectionText: 3000,
    /** A message's top-level `text` (Slack refuses a longer one: `msg_too_long`). */
    messageText: 40_000,
    /** A button's text, and a checkbox's or a select's option text. */
    buttonText: 75,
    optionText: 75,
    /** A checkbox option's description. */
    optionDescription: 75,
    /** A select option's value. */
    optionValue: 150,
    /** A button's value. */
    buttonValue: 2000,
    /** `action_id` and `block_id`. */
    actionId: 255,
    blockId: 255,
    /** Elements in an actions block. */
    actionsElements: 25,
    /** A modal: its blocks, its title (and submit and close labels), an input's label, `private_metadata`. */
    modalBlocks: 100,
    modalTitle: 24,
    inputLabel: 2000,
    privateMetadata: 3000,
    /** The most a `plain_text_input` may be told to take (`max_length`). */
    textInputMaxLength: 3000,
  },
  discord: {
    /** A message's `content`. */
    content: 2000,
    /** Action rows in a message, and buttons in one row (or a single select). */
    rows: 5,
    buttonsPerRow: 5,
    /** A component's `custom_id`, a button's label. */
    customId: 100,
    buttonLabel: 80,
    /** A string select: its options, each option's label, value and description, its placeholder. */
    selectOptions: 25,
    selectOptionText: 100,
    selectPlaceholder: 150,
    /** A modal: its title, a label's text and description, the most a text input may take (`max_length`). */
    modalTitle: 45,
    labelText: 45,
    labelDescription: 100,
    textInputMaxLength: 4000,
  },
  mattermost: {
    /** A post's message, in runes (Unicode code points): `model.post.is_valid.msg.app_error` beyond. */
    postRunes: 16_383,
    /** A dialog: its title and an element's display name, in bytes. */
    dialogTitleBytes: 24,
    displayNameBytes: 24,
    /** A dialog element's name and help text, in bytes. */
    elementNameBytes: 300,
    helpTextBytes: 150,
    /** The most a `text` element may take (`max_length`); a `textarea` takes more. */
    textMaxLength: 150,
    textareaMaxLength: 3000,
  },
  teams: {
    /**
     * One activity (a card, a reply), as the Bot Framework counts it: its JSON encoded as UTF-16. The Bot
     * Framework refuses a larger bot message with 413 `MessageSizeTooBig` at 100 KB (40 KB in its earlier
     * documentation); Teams itself holds a post to about 28 KB, the strictest of the three.
     */
    activityBytes: 28 * 1024,
  },
  whatsapp: {
    /** An interactive message's body text, and its header and footer text. */
    body: 1024,
    header: 60,
    footer: 60,
    /** A list message: its button's label, its rows (in all sections), a row's id, title and description. */
    listButton: 20,
    listRows: 10,
    rowId: 200,
    rowTitle: 24,
    rowDescription: 72,
    /** Reply buttons: how many, a button's id and its title. */
    replyButtons: 3,
    buttonId: 256,
    buttonTitle: 20,
    /** A text message's body. */
    text: 4096,
  },
  gchat: {
    /** A message's `text`, in characters. */
    text: 4096,
    /** A whole message — text and cards together — in bytes (the Chat API refuses a larger one). */
    messageBytes: 32_000,
  },
} as const;

export type Platform = keyof typeof PLATFORM_LIMITS;

/** Unicode code points: Mattermost's runes. */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** UTF-8 bytes: what Telegram's callback_data and Mattermost's dialog fields are measured in. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A JSON payload's size encoded as UTF-16, as the Bot Framework measures a message. */
export function utf16JsonBytes(payload: unknown): number {
  return JSON.stringify(payload).length * 2;
}
