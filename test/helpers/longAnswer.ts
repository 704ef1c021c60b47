/**
 * The long answer the pacing tests, the speakers' browser test and the first-audio bench speak:
 * twelve sentences, 627 characters, each 30 to 80 characters and a few with a clause in them, the
 * way a spoken answer runs (about 40 s of the tiny voice).
 */
export const LONG_ANSWER_SENTENCES: readonly string[] = [
  'Sure, here is the plan for tomorrow.',
  'We meet at nine by the river, right next to the old stone bridge.',
  'Bring some water, a light jacket and a small snack for the walk.',
  'I will send you the map and the bus times tonight.',
  'The path is flat for the first hour.',
  'After that it climbs gently through the woods, past the old mill and the pond.',
  'There is a bench at the top where we can rest.',
  'If it rains, we will take the lower path instead.',
  'Lunch is at the inn in the village, about noon.',
  'They make a very good soup, and the bread is baked that morning.',
  'We should be back at the bridge by three.',
  'Let me know tonight if anything changes.',
];

export const LONG_ANSWER = LONG_ANSWER_SENTENCES.join(' ');
