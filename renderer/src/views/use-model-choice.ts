// A model select over a filtered catalog: keeps the user's choice while the live catalog still
// offers it, else falls back to a preferred id, else the first model.
import { useMemo, useState } from 'react';
import type { CatalogModel } from '../../../shared/studio-contract';
import { pick } from '../lib/models';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

export interface ModelChoice {
  models: CatalogModel[];
  model: CatalogModel | undefined;
  modelId: string;
  setModelId(id: string): void;
  loaded: boolean;
}

export function useModelChoice(filter: (m: CatalogModel) => boolean, preferred: string): ModelChoice {
  const { catalog } = useStores();
  const all = useStore(catalog, (s) => s.models);
  const loaded = useStore(catalog, (s) => s.loaded);
  const models = useMemo(() => all.filter(filter), [all, filter]);
  const [chosen, setModelId] = useState<string | undefined>(undefined);
  const modelId = pick(models.map((m) => m.record.id), chosen, preferred) ?? '';
  const model = models.find((m) => m.record.id === modelId);
  return { models, model, modelId, setModelId, loaded };
}

export const modelOptions = (models: CatalogModel[]) =>
  models.map((m) => ({ value: m.record.id, label: `${m.record.id} (${m.record.tier})` }));
