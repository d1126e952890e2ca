/** A record's time as the page shows it everywhere (the table, the detail): the reader's local time of day. */
export const formatTime = (iso: string): string => new Date(iso).toLocaleTimeString();
