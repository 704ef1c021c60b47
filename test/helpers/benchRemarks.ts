/**
 * Varied things a person might tell a companion, and questions that may or may not touch them, for
 * the door and recall benchmarks. Seeded: the same `Random` gives the same remarks. They share a
 * vocabulary (names, places, plans), so with the lexical hash embedder some memories sit near a
 * question and most do not — as in a real person's history.
 */
import type { Random } from './random';

const PEOPLE = [
  'my sister Ana', 'my brother Tom', 'my friend Priya', 'my neighbour Olek', 'my daughter Mia', 'my son Leo',
  'my boss Karen', 'my partner Sam', 'my colleague Ravi', 'my grandmother Rosa', 'my uncle Pedro', 'my cousin Jun',
  'my teacher Mr Okafor', 'my flatmate Ines', 'my doctor', 'my best friend Lukas',
] as const;
const PETS = ['my cat Miso', 'my dog Biscuit', 'our parrot Kiwi', 'the rabbit Clover', 'my old dog Rex'] as const;
const PLACES = [
  'Lisbon', 'the lake house', 'Kyoto', 'the allotment', 'Berlin', 'the coast', 'my office', 'the old bridge', 'Marrakesh',
  'the mountains', 'the library', 'Toronto', 'the hospital', 'the climbing gym', 'Naples', 'the farmers market',
] as const;
const WHEN = [
  'next spring', 'on Saturday', 'this weekend', 'in March', 'after Easter', 'tomorrow morning', 'every Tuesday',
  'last summer', 'on the fourteenth', 'before the holidays', 'in two weeks', 'at the end of the month',
] as const;
const THINGS = [
  'strong coffee', 'jazz records', 'long walks', 'spicy food', 'old films', 'board games', 'gardening', 'cold swims',
  'poetry', 'baking bread', 'woodwork', 'chess', 'crossword puzzles', 'running at dawn', 'learning Japanese', 'sketching birds',
] as const;
const FEELINGS = ['nervous', 'excited', 'worried', 'happy', 'unsure', 'tired', 'proud', 'curious'] as const;
const EVENTS = [
  'the job interview', 'the wedding', 'the move', 'the marathon', 'the exam', 'the surgery', 'the concert', 'the trip',
  'the recital', 'the first day at school', 'the book club', 'the house viewing',
] as const;
const PLANS = [
  'learn to sail', 'paint the kitchen', 'visit', 'cycle to', 'take a course in', 'find a flat near', 'write a letter from',
  'plant tomatoes at', 'go hiking near', 'start a choir in',
] as const;
const ALLERGIES = ['peanuts', 'cats', 'pollen', 'shellfish', 'penicillin', 'dust'] as const;
/** What a person adds after the fact, now and then. */
const ASIDES = [
  'which still surprises me', 'if I am honest', 'and it rained the whole time', 'though nobody asked me',
  'and I keep thinking about it', 'so wish me luck', 'which cost far too much', 'and the train was late again',
  'after a very long week', 'like every year', 'and I could not sleep after', 'which made my mother laugh',
  'before breakfast', 'with a terrible cold', 'and I took photos', 'as I promised in January',
  'and it went better than I feared', 'despite the noise upstairs', 'for the third time', 'on my own for once',
] as const;

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

const capital = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const REMARKS: readonly ((random: Random) => string)[] = [
  (r) => `${capital(pick(r, PEOPLE))} really loves ${pick(r, THINGS)}.`,
  (r) => `I am ${pick(r, FEELINGS)} about ${pick(r, EVENTS)} ${pick(r, WHEN)}.`,
  (r) => `The birthday of ${pick(r, PEOPLE)} is ${pick(r, WHEN)}, remind me to call.`,
  (r) => `I want to ${pick(r, PLANS)} ${pick(r, PLACES)} ${pick(r, WHEN)}.`,
  (r) => `We are planning ${pick(r, EVENTS)} at ${pick(r, PLACES)} with ${pick(r, PEOPLE)}.`,
  (r) => `${capital(pick(r, PETS))} has been ill since ${pick(r, WHEN)}.`,
  (r) => `I am allergic to ${pick(r, ALLERGIES)}, and so is ${pick(r, PEOPLE)}.`,
  (r) => `Lately I spend my evenings on ${pick(r, THINGS)} and ${pick(r, THINGS)}.`,
  (r) => `${capital(pick(r, PEOPLE))} moved to ${pick(r, PLACES)} ${pick(r, WHEN)} and I miss them.`,
  (r) => `I had an argument with ${pick(r, PEOPLE)} about ${pick(r, EVENTS)}.`,
];

const QUESTIONS: readonly ((random: Random) => string)[] = [
  (r) => `What should I get ${pick(r, PEOPLE)} for their birthday?`,
  (r) => `Can you help me get ready for ${pick(r, EVENTS)}?`,
  (r) => `Do you think I should ${pick(r, PLANS)} ${pick(r, PLACES)}?`,
  (r) => `How do I stop feeling ${pick(r, FEELINGS)} in the evenings?`,
  (r) => `Any ideas for a quiet weekend near ${pick(r, PLACES)}?`,
  (r) => `How is ${pick(r, PETS)} likely to cope with ${pick(r, EVENTS)}?`,
  (r) => `What is a good way to get better at ${pick(r, THINGS)}?`,
  () => `Tell me a short story about a lighthouse keeper.`,
];

/** Something a person tells a bot: a fact, a plan, a worry; 30–130 characters. */
export function remark(random: Random): string {
  const said = pick(random, REMARKS)(random);
  return random() < 0.6 ? `${said.slice(0, -1)}, ${pick(random, ASIDES)}.` : said;
}

/** Something a person asks; about half share a name, place or plan with some remark. */
export function question(random: Random): string {
  return pick(random, QUESTIONS)(random);
}
