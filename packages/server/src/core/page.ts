/** One page of a cursor-paged list. */
export interface Page<T> {
  readonly entities: T[];
  /** "" on the last page. */
  readonly nextPageToken: string;
}
