// The studio shell: navigation, header, the current view and notices.
import type { ComponentType } from 'react';
import { Sidebar } from './components/sidebar';
import { Toasts } from './components/toasts';
import { TopBar } from './components/top-bar';
import { useStores } from './stores/stores-context';
import type { ViewId } from './stores/ui-store';
import { useStore } from './stores/use-store';
import { ActivityView } from './views/activity-view';
import { BillingView } from './views/billing-view';
import { EditView } from './views/edit-view';
import { ImagesView } from './views/images-view';
import { KeysView } from './views/keys-view';
import { ModelsView } from './views/models-view';
import { ProvidersView } from './views/providers-view';
import { VideosView } from './views/videos-view';

const VIEW_COMPONENTS: Record<ViewId, ComponentType> = {
  models: ModelsView,
  images: ImagesView,
  edit: EditView,
  videos: VideosView,
  billing: BillingView,
  keys: KeysView,
  providers: ProvidersView,
  activity: ActivityView,
};

export function App({ transport }: { transport: string }) {
  const { ui } = useStores();
  const view = useStore(ui, (s) => s.view);
  const View = VIEW_COMPONENTS[view];
  return (
    <div className="app">
      <Sidebar transport={transport} />
      <div className="main">
        <TopBar />
        <main className="content" id="content">
          <View />
        </main>
      </div>
      <Toasts />
    </div>
  );
}
