// Names and labels are shown in rows (mgw's tables, the studio) and joined into URLs: a line
// break or a terminal escape in one would split or recolour a row, or call another URL.
const CONTROL_CHAR = /\p{Cc}/u;

/** Whether `text` holds a control character (a line break, a tab, NUL, an escape). */
export const hasControlChar = (text: string): boolean => CONTROL_CHAR.test(text);
