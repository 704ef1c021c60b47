/** One line of the page's warnings (PageWarnings.vue): one fault, however often it happened. */
export interface PageWarning {
  /** Stays the same while the warning does, so a dismissal sticks. */
  key: string;
  /** A sentence for a person. */
  text: string;
  /** What the line shows until it is opened, where the sentence is long and starts with a detail (default the sentence). */
  summary?: string;
  /** Offers "Try again" (the voice could not start). */
  retry?: boolean;
  /** The `data-testid` of its sentence. */
  testId: string;
}
