/** An address as a mail header takes it (the sender) or a target names it: one `@`, no whitespace. */
export const EMAIL_ADDRESS = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
