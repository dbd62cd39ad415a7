/** Go's `strconv.Atoi` as Node applies it to trickle sequence numbers. */
export function parseSeq(text: string): number | undefined {
  if (!/^[+-]?\d{1,15}$/u.test(text)) return undefined;
  return Number(text);
}
