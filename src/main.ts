import { createApp } from 'vue';
import { onWordsChanged, speakLanguage, wordsLanguage } from './app/words';
import App from './ui/App.vue';
import './ui/base.css';

// The page speaks the language it last spoke (else the browser's) from the first moment, and says
// so to screen readers; a voice page then speaks its reader's setting.
const markLanguage = () => {
  document.documentElement.lang = wordsLanguage();
};
markLanguage();
onWordsChanged(markLanguage);
void speakLanguage(wordsLanguage());

createApp(App).mount('#app');
