/** A language model that reads a page and answers an instruction about it. */

export interface LlmPage {
  url: string;
  title?: string;
  markdown: string;
}

export interface LlmAnswer {
  text: string;
  promptTokens: number;
  completionTokens: number;
  /** True when the page was cut to fit the model's input budget. */
  truncated: boolean;
}

export interface LlmExtractor {
  /**
   * Throws a ServiceError (extraction_failed, extraction_timeout) when no usable answer comes back.
   * `signal` ends the call early (the caller went away).
   */
  extract(instruction: string, page: LlmPage, options?: { signal?: AbortSignal }): Promise<LlmAnswer>;
}
