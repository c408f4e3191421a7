// What "Automatic" output size means for an edit, said before sending: the size comes from the
// references and the instruction, and the built-in engine combines several references into one
// wider image (docs/decisions.md, "Choices"), so "same as the first reference" was not true.
import type { CatalogModel } from '../../../shared/studio-contract';

export const AUTO_SIZE_LABEL = 'Automatic (from the references)';

export function automaticSizeHint(model: CatalogModel | undefined, references: number): string {
  if (model && model.provider !== 'local') return `The upstream model (${model.provider}) picks the size.`;
  if (references >= 2) {
    return `The built-in engine combines the ${references} references (side by side unless the instruction says otherwise), so the result is larger than the first one. Pick a size to get exactly that size.`;
  }
  return "The result keeps the reference's size, unless the instruction resizes it.";
}
