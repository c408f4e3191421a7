// Hands the stores and the media URL resolver to the component tree (no transport access).
import { createContext, useContext, type ReactNode } from 'react';
import type { StudioStores } from './studio-stores';

interface StudioContextValue {
  stores: StudioStores;
  mediaUrl: (path: string) => string;
}

const StudioContext = createContext<StudioContextValue | null>(null);

export function StudioProvider(props: StudioContextValue & { children: ReactNode }) {
  const { stores, mediaUrl, children } = props;
  return <StudioContext.Provider value={{ stores, mediaUrl }}>{children}</StudioContext.Provider>;
}

function useStudio(): StudioContextValue {
  const value = useContext(StudioContext);
  if (!value) throw new Error('StudioProvider is missing');
  return value;
}

export const useStores = (): StudioStores => useStudio().stores;
export const useMediaUrl = (): ((path: string) => string) => useStudio().mediaUrl;
