// Filter bar of the Models view; options come from the live catalog itself.
import { useMemo } from 'react';
import type { CatalogModel } from '../../../shared/studio-contract';
import { SelectField } from '../components/select-field';

export interface ModelFilter {
  modality: string;
  tier: string;
  pricing: string;
  provider: string;
}

export const ALL = '';
export const NO_FILTER: ModelFilter = { modality: ALL, tier: ALL, pricing: ALL, provider: ALL };

export function matches(m: CatalogModel, f: ModelFilter): boolean {
  const r = m.record;
  // Filter on what a model produces: that is what the user picks a model for.
  const outputs: readonly string[] = r.modalities.output;
  return (
    (f.modality === ALL || outputs.includes(f.modality)) &&
    (f.tier === ALL || r.tier === f.tier) &&
    (f.pricing === ALL || r.pricing_mode === f.pricing) &&
    (f.provider === ALL || m.provider === f.provider)
  );
}

const options = (values: Iterable<string>, all: string) => [
  { value: ALL, label: all },
  ...[...new Set(values)].sort().map((v) => ({ value: v, label: v })),
];

export function ModelFilters({ models, value, onChange }: { models: CatalogModel[]; value: ModelFilter; onChange(f: ModelFilter): void }) {
  const opts = useMemo(
    () => ({
      modality: options(models.flatMap((m) => m.record.modalities.output), 'All modalities'),
      tier: options(models.map((m) => m.record.tier), 'All tiers'),
      pricing: options(models.map((m) => m.record.pricing_mode), 'All pricing modes'),
      provider: options(models.map((m) => m.provider), 'All providers'),
    }),
    [models],
  );
  return (
    <div className="filters" role="group" aria-label="Filters">
      <SelectField label="Modality" value={value.modality} options={opts.modality} onChange={(modality) => onChange({ ...value, modality })} />
      <SelectField label="Tier" value={value.tier} options={opts.tier} onChange={(tier) => onChange({ ...value, tier })} />
      <SelectField label="Pricing mode" value={value.pricing} options={opts.pricing} onChange={(pricing) => onChange({ ...value, pricing })} />
      <SelectField label="Provider" value={value.provider} options={opts.provider} onChange={(provider) => onChange({ ...value, provider })} />
    </div>
  );
}
