// Counts in prose, as the app, the CLI and the planner's summaries write them.

/** A count with thousands separated: `count(60086)` is "60,086" (pod pairs run to billions). */
export const count = (n: number) => n.toLocaleString('en-US');

/** `n` and the word, in the plural unless n is 1: `plural(5006, 'node')` is "5,006 nodes". */
export const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

/** The first `named` of `names` and how many more: "a, b, c and 1,234 more". */
export const someOf = (names: readonly string[], named = 5) => `${names.slice(0, named).join(', ')}${names.length > named ? ` and ${count(names.length - named)} more` : ''}`;
