/**
 * Whether a new password is one an attacker tries early (ASVS 2.1.7, 2.1.8): zxcvbn-ts's estimate
 * with its common-password, English-word and name lists, and the person's own address and the
 * product's name as words it knows. Refused: a password that is one of the common passwords as a
 * whole (or a trivial variant of one), and one whose estimate is below "safely unguessable"
 * (score 3: about 10^8 guesses, past what an online attack reaches). Passwords already set are
 * not judged again at sign-in. Built at the first use: the lists take a few MB and ~50 ms.
 */
import { createRequire } from 'node:module';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

export const MIN_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;

// The packages are loaded at the first use too, not when the server starts: their lists add ~36 MB
// to the RSS of every process (`scripts/bench broadcast` and `delivery` have RSS targets), and
// most servers never judge a password. Their CommonJS builds are what an import resolves to.
const load = createRequire(import.meta.url);

function estimate(password: string, userInputs: readonly string[]) {
  if (estimator === undefined) {
    const core = load('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
    const common = load('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    const english = load('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en');
    estimator = new core.ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
  }
  return estimator.check(password, [...userInputs]);
}

/** Why the password is refused (to follow "must" or "is"), or undefined when it is strong enough. */
export function passwordWeakness(password: string, userInputs: readonly string[] = []): string | undefined {
  const result = estimate(password, userInputs);
  const [only] = result.sequence;
  if (
    result.sequence.length === 1 &&
    only?.pattern === 'dictionary' &&
    'dictionaryName' in only &&
    String(only.dictionaryName).startsWith('passwords')
  )
    return 'is a commonly used password; choose another';
  if (result.score >= MIN_SCORE) return undefined;
  const hint = result.feedback.warning ?? result.feedback.suggestions[0];
  return `is too easy to guess${hint ? ` (${hint.replace(/\.$/, '')})` : ''}; add more uncommon words`;
}
