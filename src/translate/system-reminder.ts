/**
 * System text met after a conversation has begun, as the user text it becomes (SPEC 11, Kinds: never dropped, carried
 * in place marked as system), for every client format alike: Claude Code's own wrapper for its reminders, which models
 * trained on its traces know.
 */
export const asReminder = (text: string): string => (text.trimStart().startsWith("<system-reminder>") ? text : `<system-reminder>\n${text}\n</system-reminder>`);
