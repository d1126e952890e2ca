/**
 * A strict reading of RFC 9110's HTTP-date (section 5.6.7): the preferred IMF-fixdate and the two obsolete forms a
 * recipient must accept (rfc850-date, asctime-date), nothing else. `Date.parse` is no substitute: V8 reads almost any
 * string with a number in it as some date (`"5, 7"`, `"-1"`), and a `retry-after` read so rests a key for no time.
 */

const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const DAY_LONG = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH = `(${MONTHS.join("|")})`;
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` */
const RFC850_DATE = new RegExp(`^${DAY_LONG}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (a one-digit day after two spaces) */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} (\\d{2}| \\d) ${TIME} (\\d{4})$`);

/** The ms since the epoch of these parts, or undefined when they name no moment (a 30 February, a 25th hour). */
function utc(year: number, month: string, day: string, hour: string, minute: string, second: string): number | undefined {
  const m = MONTHS.indexOf(month);
  const [d, h, min, s] = [Number(day), Number(hour), Number(minute), Number(second)];
  // time-of-day allows a leap second (60).
  if (h > 23 || min > 59 || s > 60) return undefined;
  const midnight = Date.UTC(year, m, d);
  const date = new Date(midnight);
  if (date.getUTCDate() !== d || date.getUTCMonth() !== m) return undefined;
  return midnight + ((h * 60 + min) * 60 + s) * 1000;
}

/**
 * RFC 9110: a recipient of an rfc850-date's two-digit year reads a year more than 50 years in the future as the most
 * recent past year with the same last two digits.
 */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + twoDigits;
  return year > current + 50 ? year - 100 : year;
}

/** The ms since the epoch of an HTTP-date, or undefined when `text` is not one. */
export function parseHttpDate(text: string, now = Date.now()): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(Number(match[3]), match[2]!, match[1]!, match[4]!, match[5]!, match[6]!);
  match = RFC850_DATE.exec(text);
  if (match) return utc(fullYear(Number(match[3]), now), match[2]!, match[1]!, match[4]!, match[5]!, match[6]!);
  match = ASCTIME_DATE.exec(text);
  if (match) return utc(Number(match[6]), match[1]!, match[2]!.trim(), match[3]!, match[4]!, match[5]!);
  return undefined;
}
