package engine

import "strings"

// luceneEnglishStop is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (33
// words), the set Anserini's default English analyzer removes. Matching it
// keeps the built-in BM25 numbers comparable with Anserini's.
var luceneEnglishStop = words(`a an and are as at be but by for if in into is it
no not of on or such that the their then there these they this to was will with`)

// The other languages use short function-word lists in the spirit of the
// Snowball stop lists: articles, pronouns, prepositions, conjunctions and
// auxiliaries that carry no topic.
var germanStop = words(`aber alle allem allen aller alles als also am an ander andere anderem
anderen anderer anderes anderm andern anderr anders auch auf aus bei bin bis bist da damit dann
das dass dasselbe dazu daß dein deine deinem deinen deiner deines dem demselben den denn denselben
der derer derselbe derselben des desselben dessen dich die dies diese dieselbe dieselben diesem
diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines einig einige einigem
einigen einiger einiges einmal er es etwas euch euer eure eurem euren eurer eures für gegen
gewesen hab habe haben hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren
ihrer ihres im in indem ins ist jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt
kann kein keine keinem keinen keiner keines können könnte machen man manche manchem manchen
mancher manches mein meine meinem meinen meiner meines mich mir mit muss musste nach nicht
nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner seines selbst sich sie
sind so solche solchem solchen solcher solches soll sollte sondern sonst über um und uns unsere
unserem unseren unser unseres unter viel vom von vor während war waren warst was weg weil weiter
welche welchem welchen welcher welches wenn werde werden wie wieder will wir wird wirst wo wollen
wollte würde würden zu zum zur zwar zwischen`)

var frenchStop = words(`au aux avec ce ces dans de des du elle en et eux il ils je la le les
leur lui ma mais me même mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses
son sur ta te tes toi ton tu un une vos votre vous c d j l à m n s t y été étée étées étés
étant suis es est sommes êtes sont serai sera serons seront serais serait serions seriez
seraient étais était étions étiez étaient fus fut fûmes furent sois soit soyons soyez soient
ai as avons avez ont aurai aura aurons auront aurais aurait aurions auriez auraient avais
avait avions aviez avaient eut eûmes eurent aie aies ait ayons ayez aient ayant eu eue eues
eus ceci cela celà cet cette ici ils les leurs quel quels quelle quelles sans soi`)

var italianStop = words(`ad al allo ai agli all agl alla alle con col coi da dal dallo dai
dagli dall dagl dalla dalle di del dello dei degli dell degl della delle in nel nello nei negli
nell negl nella nelle su sul sullo sui sugli sull sugl sulla sulle per tra contro io tu lui lei
noi voi loro mio mia miei mie tuo tua tuoi tue suo sua suoi sue nostro nostra nostri nostre
vostro vostra vostri vostre mi ti ci vi lo la li le gli ne il un uno una ma ed se perché anche
come dov dove che chi cui non più quale quanto quanti quanta quante quello quelli quella quelle
questo questi questa queste si tutto tutti a c e i l o ho hai ha abbiamo avete hanno è sono
sei siamo siete era erano essere stato stata`)

var spanishStop = words(`de la que el en y a los del se las por un para con no una su al lo
como más pero sus le ya o este sí porque esta entre cuando muy sin sobre también me hasta hay
donde quien desde todo nos durante todos uno les ni contra otros ese eso ante ellos e esto mí
antes algunos qué unos yo otro otras otra él tanto esa estos mucho quienes nada muchos cual poco
ella estar estas algunas algo nosotros mi mis tú te ti tu tus ellas nosotras vosotros vosotras
os mío mía míos mías tuyo tuya suyo suya nuestro nuestra vuestro vuestra esos esas estoy estás
está estamos estáis están es son soy eres somos sois era eran fue fueron ser sido ha han he has
hemos habéis haber`)

var dutchStop = words(`de en van ik te dat die in een hij het niet zijn is was op aan met als
voor had er maar om hem dan zou of wat mijn men dit zo door over ze zich bij ook tot je mij uit
der daar haar naar heb hoe heeft hebben deze u want nog zal me zij nu ge geen omdat iets worden
toch al waren veel meer doen toen moet ben zonder kan hun dus alles onder ja eens hier wie werd
altijd doch wordt wezen kunnen ons zelf tegen na reeds wil kon niets uw iemand geweest andere`)

var portugueseStop = words(`de a o que e do da em um para com não uma os no se na por mais as
dos como mas ao ele das à seu sua ou quando muito nos já eu também só pelo pela até isso ela
entre depois sem mesmo aos seus quem nas me esse eles você essa num nem suas meu às minha numa
pelos elas qual nós lhe deles essas esses pelas este dele tu te vocês vos lhes meus minhas teu
tua teus tuas nosso nossa nossos nossas dela delas esta estes estas aquele aquela aqueles
aquelas isto aquilo estou está estamos estão foi foram ser é são sou era eram tem têm ter há`)

// englishFunctionWords is a broader English list used only to recognise a
// document's language, never to remove terms.
var englishFunctionWords = words(`a about above after again against all am an and any are as at
be because been before being below between both but by can could did do does doing down during
each few for from further had has have having he her here hers him his how i if in into is it its
itself just me more most my no nor not now of off on once only or other our ours out over own
same she should so some such than that the their theirs them then there these they this those
through to too under until up very was we were what when where which while who whom why will
with would you your`)

func words(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
