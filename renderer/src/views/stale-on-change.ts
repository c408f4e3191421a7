// A form's error names the inputs it was about (files, prompt, model, options): once any of them
// changes it is stale. The returned wrapper turns an input's setter into one that also clears it.
export function staleOnChange(clear: () => void) {
  return <T>(set: (value: T) => void) =>
    (value: T): void => {
      set(value);
      clear();
    };
}
