// The character codes the JSON text scanners read (listsplit.ts, unmanaged.ts).
export const QUOTE = 34;
export const BACKSLASH = 92;
export const COMMA = 44;
export const COLON = 58;
export const OPEN_BRACE = 123;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACE = 125;
export const CLOSE_BRACKET = 93;
