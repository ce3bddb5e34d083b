// Counts in prose, as the app, the CLI and the planner's summaries write them.

const numbers = new Intl.NumberFormat('en-US');

/**
 * A count with thousands separated: `count(60086)` is "60,086" (pod pairs run to billions). One
 * formatter for all: `toLocaleString` sets one up at each call, and a list's counts are written
 * at every watch flush (2% of the Pods page's main thread in a 5000-node rollout).
 */
export const count = (n: number) => numbers.format(n);

/** `n` and the word, in the plural unless n is 1: `plural(5006, 'node')` is "5,006 nodes". */
export const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

/** The first `named` of `names` and how many more: "a, b, c and 1,234 more". */
export const someOf = (names: readonly string[], named = 5) => `${names.slice(0, named).join(', ')}${names.length > named ? ` and ${count(names.length - named)} more` : ''}`;
