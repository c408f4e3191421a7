/** What a provider cannot honour in a model record, naming the record field (relative to the record) that asks for too much. */
export interface RouteProblem {
  param: string;
  message: string;
}
