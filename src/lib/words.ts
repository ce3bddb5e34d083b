// Counts in prose, as the app, the CLI and the planner's summaries write them.

/** `n` and the word, in the plural unless n is 1: `plural(3, 'node')` is "3 nodes". */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
