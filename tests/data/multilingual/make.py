"""The multilingual judged set (README.md beside it): its documents, queries and judgments
written out in BEIR layout."""
# ruff: noqa: E501 - the texts are data, a line each
import json
from pathlib import Path

T = {
 "lease": {
  "en": ("Lease termination", "Either party may terminate the residential lease with three months' notice, given in writing before the end of a calendar quarter. The landlord returns the deposit within thirty days after the keys are handed back."),
  "de": ("Kündigung des Mietvertrags", "Der Mietvertrag kann von beiden Parteien mit einer Frist von drei Monaten zum Quartalsende schriftlich gekündigt werden. Der Vermieter zahlt die Kaution innerhalb von dreißig Tagen nach Rückgabe der Schlüssel zurück."),
  "fr": ("Résiliation du bail", "Chaque partie peut résilier le bail d'habitation moyennant un préavis de trois mois, notifié par écrit avant la fin d'un trimestre civil. Le bailleur restitue le dépôt de garantie dans les trente jours suivant la remise des clés."),
  "es": ("Rescisión del contrato de arrendamiento", "Cualquiera de las partes puede rescindir el contrato de arrendamiento con un preaviso de tres meses, comunicado por escrito antes del final de un trimestre natural. El arrendador devuelve la fianza en un plazo de treinta días tras la entrega de las llaves."),
 },
 "travel": {
  "en": ("Travel expenses", "Employees are reimbursed for travel expenses such as train tickets, hotel nights and meals when they submit the original receipts within one month of the business trip."),
  "de": ("Reisekosten", "Mitarbeitende erhalten Reisekosten wie Bahnfahrkarten, Hotelübernachtungen und Mahlzeiten erstattet, wenn sie die Originalbelege innerhalb eines Monats nach der Dienstreise einreichen."),
  "fr": ("Frais de déplacement", "Les salariés sont remboursés de leurs frais de déplacement, comme les billets de train, les nuits d'hôtel et les repas, lorsqu'ils remettent les justificatifs originaux dans le mois qui suit le voyage d'affaires."),
  "es": ("Gastos de viaje", "A los empleados se les reembolsan los gastos de viaje, como billetes de tren, noches de hotel y comidas, cuando presentan los recibos originales dentro del mes siguiente al viaje de negocios."),
 },
 "leave": {
  "en": ("Annual leave", "Every full-time employee is entitled to thirty days of paid annual leave per calendar year. Unused holiday days may be carried over until the end of March of the following year."),
  "de": ("Jahresurlaub", "Jede vollzeitbeschäftigte Person hat Anspruch auf dreißig Tage bezahlten Jahresurlaub pro Kalenderjahr. Nicht genommene Urlaubstage können bis Ende März des Folgejahres übertragen werden."),
  "fr": ("Congés annuels", "Chaque salarié à temps plein a droit à trente jours de congés payés par année civile. Les jours de congé non pris peuvent être reportés jusqu'à la fin mars de l'année suivante."),
  "es": ("Vacaciones anuales", "Todo empleado a tiempo completo tiene derecho a treinta días de vacaciones pagadas por año natural. Los días de vacaciones no disfrutados pueden trasladarse hasta finales de marzo del año siguiente."),
 },
 "interest": {
  "en": ("Late payment", "Invoices are payable within thirty days. If the buyer pays late, interest accrues at eight percentage points above the base rate from the day after the due date."),
  "de": ("Zahlungsverzug", "Rechnungen sind innerhalb von dreißig Tagen zahlbar. Zahlt der Käufer verspätet, fallen ab dem Tag nach Fälligkeit Verzugszinsen in Höhe von acht Prozentpunkten über dem Basiszinssatz an."),
  "fr": ("Retard de paiement", "Les factures sont payables à trente jours. En cas de paiement tardif, l'acheteur doit des intérêts de retard de huit points au-dessus du taux de base à compter du lendemain de l'échéance."),
  "es": ("Demora en el pago", "Las facturas deben pagarse en un plazo de treinta días. Si el comprador paga con retraso, se devengan intereses de demora de ocho puntos por encima del tipo básico desde el día siguiente al vencimiento."),
 },
 "privacy": {
  "en": ("Personal data", "Personal data of applicants is deleted six months after the end of the application process unless the candidate consents to a longer storage period in the talent pool."),
  "de": ("Personenbezogene Daten", "Personenbezogene Daten von Bewerbern werden sechs Monate nach Abschluss des Bewerbungsverfahrens gelöscht, sofern die Bewerberin oder der Bewerber nicht in eine längere Speicherung im Talentpool einwilligt."),
  "fr": ("Données personnelles", "Les données personnelles des candidats sont supprimées six mois après la fin de la procédure de recrutement, sauf si le candidat consent à une conservation plus longue dans le vivier de talents."),
  "es": ("Datos personales", "Los datos personales de los candidatos se suprimen seis meses después del final del proceso de selección, salvo que el candidato consienta un plazo de conservación más largo en la bolsa de talento."),
 },
 "fire": {
  "en": ("Fire safety", "An evacuation drill takes place twice a year. Fire extinguishers are inspected annually, and emergency exits must never be blocked by furniture or boxes."),
  "de": ("Brandschutz", "Zweimal im Jahr findet eine Räumungsübung statt. Feuerlöscher werden jährlich geprüft, und Notausgänge dürfen niemals durch Möbel oder Kartons versperrt werden."),
  "fr": ("Sécurité incendie", "Un exercice d'évacuation a lieu deux fois par an. Les extincteurs sont contrôlés chaque année et les issues de secours ne doivent jamais être encombrées par des meubles ou des cartons."),
  "es": ("Seguridad contra incendios", "Dos veces al año se realiza un simulacro de evacuación. Los extintores se revisan anualmente y las salidas de emergencia nunca deben quedar bloqueadas por muebles o cajas."),
 },
 "warranty": {
  "en": ("Warranty", "The supplier warrants that the delivered goods are free from defects for twenty-four months. Defects must be reported in writing within ten days of their discovery."),
  "de": ("Gewährleistung", "Der Lieferant gewährleistet, dass die gelieferten Waren vierundzwanzig Monate lang frei von Mängeln sind. Mängel sind innerhalb von zehn Tagen nach ihrer Entdeckung schriftlich anzuzeigen."),
  "fr": ("Garantie", "Le fournisseur garantit que les marchandises livrées sont exemptes de défauts pendant vingt-quatre mois. Les défauts doivent être signalés par écrit dans les dix jours suivant leur découverte."),
  "es": ("Garantía", "El proveedor garantiza que las mercancías entregadas están libres de defectos durante veinticuatro meses. Los defectos deben comunicarse por escrito en un plazo de diez días desde su descubrimiento."),
 },
 "confidential": {
  "en": ("Confidentiality", "The recipient shall keep all confidential information secret, use it only for the agreed purpose and return or destroy it when the agreement ends."),
  "de": ("Vertraulichkeit", "Der Empfänger hat alle vertraulichen Informationen geheim zu halten, sie nur für den vereinbarten Zweck zu verwenden und sie bei Vertragsende zurückzugeben oder zu vernichten."),
  "fr": ("Confidentialité", "Le destinataire s'engage à garder secrètes toutes les informations confidentielles, à ne les utiliser qu'aux fins convenues et à les restituer ou les détruire à la fin du contrat."),
  "es": ("Confidencialidad", "El receptor mantendrá en secreto toda la información confidencial, la utilizará únicamente para el fin acordado y la devolverá o destruirá cuando finalice el acuerdo."),
 },
 "probation": {
  "en": ("Probation period", "New employees serve a probation period of six months, during which either side may end the employment with two weeks' notice."),
  "de": ("Probezeit", "Neue Mitarbeitende haben eine Probezeit von sechs Monaten, in der beide Seiten das Arbeitsverhältnis mit einer Frist von zwei Wochen beenden können."),
  "fr": ("Période d'essai", "Les nouveaux salariés effectuent une période d'essai de six mois, pendant laquelle chaque partie peut mettre fin au contrat de travail avec un préavis de deux semaines."),
  "es": ("Periodo de prueba", "Los nuevos empleados cumplen un periodo de prueba de seis meses, durante el cual cualquiera de las partes puede poner fin a la relación laboral con un preaviso de dos semanas."),
 },
 "overtime": {
  "en": ("Overtime", "Overtime must be approved in advance by the line manager. Each overtime hour is compensated with time off or paid at one hundred and twenty-five percent of the hourly wage."),
  "de": ("Überstunden", "Überstunden müssen vorab von der Führungskraft genehmigt werden. Jede Überstunde wird durch Freizeit ausgeglichen oder mit hundertfünfundzwanzig Prozent des Stundenlohns vergütet."),
  "fr": ("Heures supplémentaires", "Les heures supplémentaires doivent être autorisées à l'avance par le responsable hiérarchique. Chaque heure supplémentaire est compensée par un repos ou rémunérée à cent vingt-cinq pour cent du salaire horaire."),
  "es": ("Horas extraordinarias", "Las horas extraordinarias deben ser autorizadas previamente por el superior directo. Cada hora extraordinaria se compensa con tiempo libre o se paga al ciento veinticinco por ciento del salario por hora."),
 },
 "water": {
  "en": ("Water damage claim", "Water damage to the building must be reported to the insurer within seven days. The claim needs photographs of the damage and the invoice of the plumber who repaired the burst pipe."),
  "de": ("Wasserschaden", "Wasserschäden am Gebäude sind dem Versicherer innerhalb von sieben Tagen zu melden. Für die Schadensmeldung werden Fotos des Schadens und die Rechnung des Installateurs benötigt, der das geplatzte Rohr repariert hat."),
  "fr": ("Dégât des eaux", "Tout dégât des eaux dans l'immeuble doit être déclaré à l'assureur dans les sept jours. La déclaration de sinistre doit comporter des photos des dommages et la facture du plombier qui a réparé la canalisation éclatée."),
  "es": ("Daños por agua", "Los daños por agua en el edificio deben comunicarse a la aseguradora en un plazo de siete días. La reclamación requiere fotografías de los daños y la factura del fontanero que reparó la tubería reventada."),
 },
 "meeting": {
  "en": ("Annual general meeting", "The annual general meeting of shareholders approves the financial statements, decides on the distribution of profits and elects the members of the supervisory board."),
  "de": ("Hauptversammlung", "Die ordentliche Hauptversammlung der Aktionäre stellt den Jahresabschluss fest, beschließt über die Verwendung des Bilanzgewinns und wählt die Mitglieder des Aufsichtsrats."),
  "fr": ("Assemblée générale", "L'assemblée générale annuelle des actionnaires approuve les comptes annuels, décide de l'affectation des bénéfices et élit les membres du conseil de surveillance."),
  "es": ("Junta general", "La junta general anual de accionistas aprueba las cuentas anuales, decide sobre la distribución de los beneficios y elige a los miembros del consejo de supervisión."),
 },
 "penalty": {
  "en": ("Delivery delay", "For each week of delay in delivery the contractor pays a contractual penalty of half a percent of the order value, capped at five percent in total."),
  "de": ("Lieferverzug", "Für jede Woche Lieferverzug zahlt der Auftragnehmer eine Vertragsstrafe von einem halben Prozent des Auftragswerts, insgesamt höchstens fünf Prozent."),
  "fr": ("Retard de livraison", "Pour chaque semaine de retard de livraison, le prestataire verse une pénalité contractuelle d'un demi pour cent de la valeur de la commande, plafonnée à cinq pour cent au total."),
  "es": ("Retraso en la entrega", "Por cada semana de retraso en la entrega, el contratista paga una penalización contractual del medio por ciento del valor del pedido, con un máximo del cinco por ciento en total."),
 },
 "homeoffice": {
  "en": ("Remote work", "Staff may work from home up to three days a week. The company provides a laptop and a second monitor and pays a monthly allowance for internet costs."),
  "de": ("Homeoffice", "Beschäftigte dürfen bis zu drei Tage pro Woche von zu Hause arbeiten. Das Unternehmen stellt einen Laptop und einen zweiten Bildschirm bereit und zahlt eine monatliche Pauschale für Internetkosten."),
  "fr": ("Télétravail", "Le personnel peut travailler à domicile jusqu'à trois jours par semaine. L'entreprise fournit un ordinateur portable et un second écran et verse une indemnité mensuelle pour les frais d'internet."),
  "es": ("Teletrabajo", "El personal puede trabajar desde casa hasta tres días a la semana. La empresa proporciona un portátil y un segundo monitor y abona una asignación mensual para los gastos de internet."),
 },
 "approval": {
  "en": ("Invoice approval", "Every supplier invoice above ten thousand euros must be approved by two authorised signatories before the accounts department releases the payment."),
  "de": ("Rechnungsfreigabe", "Jede Lieferantenrechnung über zehntausend Euro muss von zwei Zeichnungsberechtigten freigegeben werden, bevor die Buchhaltung die Zahlung anweist."),
  "fr": ("Validation des factures", "Toute facture fournisseur supérieure à dix mille euros doit être validée par deux signataires autorisés avant que le service comptable ne libère le paiement."),
  "es": ("Aprobación de facturas", "Toda factura de proveedor superior a diez mil euros debe ser aprobada por dos firmantes autorizados antes de que el departamento de contabilidad libere el pago."),
 },
}
# queries written for each language: other inflections and forms than the documents use
Q = {
 "en": [("lease", "terminating leases and notice periods"), ("travel", "reimbursing train and hotel receipts"), ("leave", "how many paid holidays per year"), ("interest", "interest on overdue invoices"), ("privacy", "deleting applicant data"), ("fire", "evacuation drills and extinguisher inspections"), ("warranty", "reporting defective goods"), ("overtime", "paying overtime hours"), ("water", "burst pipe insurance claims"), ("approval", "who approves large supplier invoices")],
 "de": [("lease", "Kündigungsfrist für Mietverträge"), ("travel", "Erstattung der Reisekosten"), ("leave", "Urlaubstag übertragen"), ("interest", "Verzugszins bei verspäteter Zahlung"), ("privacy", "Löschung der Bewerberdaten"), ("fire", "Räumungsübungen und Notausgang"), ("warranty", "Mängelanzeige bei gelieferter Ware"), ("probation", "Probezeit kündigen"), ("water", "Wasserschaden melden Versicherung"), ("meeting", "Aufsichtsrat wählen Hauptversammlung")],
 "fr": [("lease", "résilier un bail préavis"), ("travel", "remboursement des frais de voyage"), ("leave", "report des congés non pris"), ("interest", "intérêt de retard facture"), ("privacy", "suppression des données des candidats"), ("confidential", "informations confidentielles restituées"), ("warranty", "défaut signalé marchandise livrée"), ("overtime", "heure supplémentaire rémunérée"), ("penalty", "pénalités de retard de livraison"), ("homeoffice", "télétravail à domicile indemnité")],
 "es": [("lease", "rescindir el arrendamiento con preaviso"), ("travel", "reembolso de gastos de viaje"), ("leave", "días de vacaciones pagados"), ("interest", "interés de demora facturas"), ("fire", "simulacros de evacuación y extintores"), ("warranty", "defectos de la mercancía entregada"), ("probation", "periodo de prueba de los empleados nuevos"), ("meeting", "junta de accionistas beneficios"), ("penalty", "penalizaciones por retrasos de entrega"), ("approval", "aprobar facturas de proveedores")],
}
# the second round (README.md): the documents' words in other forms only, none as written
HARD = {
 "de": [("lease", "gekündigte Mietverträge Fristen"), ("travel", "Dienstreisen Belege erstatten"), ("leave", "Urlaubstagen Übertragung"), ("interest", "Verzugszinses verspäteter Rechnung"), ("privacy", "Speicherungen personenbezogener Daten"), ("fire", "Räumungsübungen Notausgänge versperren"), ("warranty", "Mangel der Ware Lieferanten"), ("overtime", "genehmigte Überstunden vergüten"), ("water", "Wasserschadens Versicherers Rohre"), ("meeting", "Aktionär Jahresabschlusses Aufsichtsrat")],
 "fr": [("lease", "résiliation préavis notifiés bailleurs"), ("travel", "rembourser déplacements justificatif"), ("leave", "congé payé reporter"), ("interest", "intérêt tardifs échéances"), ("privacy", "supprimer donnée personnelle candidat conservations"), ("confidential", "information confidentielle détruite"), ("warranty", "marchandise livrée défaut signaler"), ("overtime", "heure supplémentaire autoriser rémunérer"), ("penalty", "pénalités contractuelles plafond livraisons"), ("homeoffice", "indemnités mensuelles internet")],
 "es": [("lease", "rescisión arrendamientos fianzas devueltas"), ("travel", "reembolsar gasto viajes recibo"), ("leave", "vacación pagada trasladar días no disfrutado"), ("interest", "interés demoras retrasos vencimientos"), ("fire", "simulacros extintor revisar salida bloqueada"), ("warranty", "mercancía entregada defecto comunicar"), ("probation", "periodos de pruebas relaciones laborales"), ("meeting", "juntas generales accionista aprobar cuenta"), ("penalty", "penalizaciones contractuales entregas pedidos"), ("approval", "facturas proveedores aprobación firmante autorizado")],
}
# the third round (README.md): families of topic-close documents — several endings of a
# contract, several payment clauses, several kinds of leave, several insurance claims — so the
# word that tells a query's document from its neighbours is the one written in another form
CLOSE = {
 "employment": {
  "en": ("Ending an employment contract", "After the probation period either side may end the employment with four weeks' notice to the end of a month. Notice must be given in writing; a notice sent by e-mail is void."),
  "de": ("Kündigung des Arbeitsvertrags", "Das Arbeitsverhältnis kann nach der Probezeit von beiden Seiten mit einer Frist von vier Wochen zum Monatsende gekündigt werden. Die Kündigung bedarf der Schriftform; eine Kündigung per E-Mail ist unwirksam."),
  "fr": ("Rupture du contrat de travail", "Après la période d'essai, chaque partie peut mettre fin au contrat de travail avec un préavis de quatre semaines à la fin du mois. La démission doit être écrite ; une démission envoyée par courriel est nulle."),
  "es": ("Extinción del contrato de trabajo", "Tras el periodo de prueba, cualquiera de las partes puede extinguir la relación laboral con un preaviso de cuatro semanas al final del mes. La dimisión debe hacerse por escrito; una dimisión enviada por correo electrónico no es válida."),
 },
 "contents": {
  "en": ("Cancelling household contents insurance", "The household contents insurance renews for one year at a time unless it is cancelled three months before it expires. After a claim the policyholder may cancel extraordinarily within one month."),
  "de": ("Kündigung der Hausratversicherung", "Die Hausratversicherung verlängert sich jeweils um ein Jahr, wenn sie nicht drei Monate vor Ablauf gekündigt wird. Nach einem Schadensfall kann der Versicherungsnehmer innerhalb eines Monats außerordentlich kündigen."),
  "fr": ("Résiliation de l'assurance habitation", "L'assurance habitation se renouvelle d'année en année si elle n'est pas résiliée trois mois avant l'échéance. Après un sinistre, l'assuré peut résilier le contrat dans un délai d'un mois."),
  "es": ("Cancelación del seguro de hogar", "El seguro de hogar se renueva año tras año si no se cancela tres meses antes de su vencimiento. Tras un siniestro, el asegurado puede cancelar la póliza en el plazo de un mes."),
 },
 "mobile": {
  "en": ("Ending a mobile phone contract", "The mobile phone contract has a minimum term of twenty-four months. After that the customer may cancel at any time with one month's notice and keep the phone number when moving to another provider."),
  "de": ("Kündigung des Mobilfunkvertrags", "Der Mobilfunkvertrag hat eine Mindestlaufzeit von vierundzwanzig Monaten. Danach kann der Kunde den Vertrag jederzeit mit einer Frist von einem Monat kündigen; die Rufnummer kann er zu einem anderen Anbieter mitnehmen."),
  "fr": ("Résiliation du forfait mobile", "Le forfait mobile comporte une durée minimale d'engagement de vingt-quatre mois. Ensuite, le client peut le résilier à tout moment avec un mois de préavis et conserver son numéro chez un autre opérateur."),
  "es": ("Baja de la línea móvil", "El contrato de línea móvil tiene una permanencia mínima de veinticuatro meses. Después, el cliente puede darse de baja en cualquier momento con un mes de preaviso y conservar su número con otro operador."),
 },
 "gym": {
  "en": ("Cancelling a gym membership", "The gym membership runs for twelve months and renews automatically. When moving house or after a long illness the member may cancel early with a doctor's certificate."),
  "de": ("Kündigung der Mitgliedschaft im Fitnessstudio", "Die Mitgliedschaft im Fitnessstudio läuft zwölf Monate und verlängert sich automatisch. Bei Umzug oder längerer Krankheit kann das Mitglied mit ärztlichem Attest vorzeitig kündigen."),
  "fr": ("Résiliation de l'abonnement à la salle de sport", "L'abonnement à la salle de sport dure douze mois et se renouvelle automatiquement. En cas de déménagement ou de longue maladie, l'adhérent peut résilier par anticipation avec un certificat médical."),
  "es": ("Baja del gimnasio", "La cuota del gimnasio dura doce meses y se renueva automáticamente. En caso de mudanza o enfermedad prolongada, el socio puede darse de baja anticipadamente con un certificado médico."),
 },
 "dunning": {
  "en": ("Payment reminders", "If an invoice remains unpaid, the customer receives a first reminder free of charge after fourteen days. Each further reminder costs five euros; after the third reminder we pass the claim to a debt collection agency."),
  "de": ("Mahnverfahren", "Bleibt eine Rechnung unbezahlt, erhält der Kunde nach vierzehn Tagen eine erste Mahnung ohne Gebühr. Jede weitere Mahnung kostet fünf Euro; nach der dritten Mahnung übergeben wir die Forderung einem Inkassobüro."),
  "fr": ("Relances de paiement", "Si une facture reste impayée, le client reçoit une première relance gratuite après quatorze jours. Chaque relance suivante coûte cinq euros ; après la troisième relance, nous confions la créance à une société de recouvrement."),
  "es": ("Recordatorios de pago", "Si una factura sigue impagada, el cliente recibe un primer recordatorio gratuito a los catorce días. Cada recordatorio adicional cuesta cinco euros; tras el tercer recordatorio cedemos la deuda a una agencia de cobro."),
 },
 "discount": {
  "en": ("Early payment discount", "For payment within ten days we grant a two percent discount on the invoice amount. The discount does not apply to shipping costs or items already reduced."),
  "de": ("Skonto", "Bei Zahlung innerhalb von zehn Tagen gewähren wir zwei Prozent Skonto auf den Rechnungsbetrag. Der Skontoabzug gilt nicht für Versandkosten und bereits rabattierte Artikel."),
  "fr": ("Escompte pour paiement anticipé", "Pour un paiement sous dix jours, nous accordons un escompte de deux pour cent sur le montant de la facture. L'escompte ne s'applique ni aux frais de port ni aux articles déjà remisés."),
  "es": ("Descuento por pronto pago", "Por el pago en un plazo de diez días concedemos un descuento del dos por ciento sobre el importe de la factura. El descuento no se aplica a los gastos de envío ni a los artículos ya rebajados."),
 },
 "instalments": {
  "en": ("Payment by instalments", "On request the purchase price can be paid in six equal monthly instalments. If the buyer falls two instalments behind, the entire remaining balance becomes due at once."),
  "de": ("Ratenzahlung", "Auf Antrag kann der Kaufpreis in sechs gleichen Monatsraten gezahlt werden. Gerät der Käufer mit zwei Raten in Rückstand, wird der gesamte Restbetrag sofort fällig."),
  "fr": ("Paiement échelonné", "Sur demande, le prix d'achat peut être réglé en six mensualités égales. Si l'acheteur a deux mensualités de retard, la totalité du solde devient immédiatement exigible."),
  "es": ("Pago a plazos", "A petición, el precio de compra puede pagarse en seis cuotas mensuales iguales. Si el comprador se retrasa en dos cuotas, todo el saldo pendiente vence de inmediato."),
 },
 "credit": {
  "en": ("Credit notes", "For returned or incorrectly charged items we issue a credit note. The credit note is offset against the next invoice or, on request, transferred to the customer's account."),
  "de": ("Gutschrift", "Für zurückgesandte oder fehlerhaft berechnete Artikel stellen wir eine Gutschrift aus. Die Gutschrift wird mit der nächsten Rechnung verrechnet oder auf Wunsch auf das Konto des Kunden überwiesen."),
  "fr": ("Avoirs", "Pour les articles retournés ou facturés par erreur, nous émettons un avoir. L'avoir est imputé sur la facture suivante ou, sur demande, viré sur le compte du client."),
  "es": ("Notas de abono", "Por los artículos devueltos o facturados por error emitimos una nota de abono. El abono se compensa con la siguiente factura o, si el cliente lo pide, se transfiere a su cuenta."),
 },
 "wedding": {
  "en": ("Special leave", "Employees receive two days of special leave for their own wedding and one day for the birth of a child. Special leave must be requested from the human resources department at least one week in advance."),
  "de": ("Sonderurlaub", "Für die eigene Hochzeit erhalten Beschäftigte zwei Tage Sonderurlaub, für die Geburt eines Kindes einen Tag. Der Sonderurlaub ist mindestens eine Woche vorher bei der Personalabteilung zu beantragen."),
  "fr": ("Congé pour événements familiaux", "Les salariés bénéficient de deux jours de congé pour leur propre mariage et d'un jour pour la naissance d'un enfant. Ce congé doit être demandé au service des ressources humaines au moins une semaine à l'avance."),
  "es": ("Permiso por matrimonio", "Los empleados tienen dos días de permiso por su propio matrimonio y un día por el nacimiento de un hijo. El permiso debe solicitarse al departamento de recursos humanos con al menos una semana de antelación."),
 },
 "parental": {
  "en": ("Parental leave", "Parents may take parental leave until their child's third birthday. Parental leave must be requested in writing at least seven weeks before it begins; during it the employee is protected against dismissal."),
  "de": ("Elternzeit", "Eltern können bis zum dritten Geburtstag ihres Kindes Elternzeit nehmen. Die Elternzeit muss spätestens sieben Wochen vor ihrem Beginn schriftlich verlangt werden; in dieser Zeit besteht Kündigungsschutz."),
  "fr": ("Congé parental", "Les parents peuvent prendre un congé parental jusqu'au troisième anniversaire de leur enfant. Le congé parental doit être demandé par écrit au moins sept semaines avant son début ; pendant ce congé, le salarié est protégé contre le licenciement."),
  "es": ("Excedencia por cuidado de hijos", "Los padres pueden pedir una excedencia por cuidado de hijos hasta el tercer cumpleaños del niño. La excedencia debe solicitarse por escrito al menos siete semanas antes de su inicio; durante ella el empleado está protegido frente al despido."),
 },
 "training": {
  "en": ("Training leave", "Employees are entitled to five days of training leave per year for recognised further education courses. The course's certificate of attendance must be presented after the training leave."),
  "de": ("Bildungsurlaub", "Beschäftigte haben Anspruch auf fünf Tage Bildungsurlaub pro Jahr für anerkannte Weiterbildungen. Die Teilnahmebescheinigung des Kurses ist nach dem Bildungsurlaub vorzulegen."),
  "fr": ("Congé de formation", "Les salariés ont droit à cinq jours de congé de formation par an pour des formations reconnues. L'attestation de présence au cours doit être remise après le congé de formation."),
  "es": ("Permiso de formación", "Los empleados tienen derecho a cinco días de permiso de formación al año para cursos reconocidos. El certificado de asistencia al curso debe entregarse después del permiso."),
 },
 "sickleave": {
  "en": ("Illness during holidays", "Anyone who falls ill during their holiday must report the incapacity immediately and present a doctor's certificate. Sick days proven by a certificate are not counted as holiday."),
  "de": ("Krankheit im Urlaub", "Wer während des Urlaubs erkrankt, muss die Arbeitsunfähigkeit sofort melden und ein ärztliches Attest vorlegen. Die durch Attest nachgewiesenen Krankheitstage werden nicht auf den Urlaub angerechnet."),
  "fr": ("Maladie pendant les congés", "Le salarié qui tombe malade pendant ses congés doit signaler immédiatement son incapacité et présenter un certificat médical. Les jours de maladie justifiés par un certificat ne sont pas décomptés des congés."),
  "es": ("Enfermedad durante las vacaciones", "Quien enferme durante sus vacaciones debe comunicar de inmediato la incapacidad y presentar un certificado médico. Los días de enfermedad acreditados con certificado no se descuentan de las vacaciones."),
 },
 "storm": {
  "en": ("Storm damage", "Damage caused by storms of wind force eight or more to the roof or facade is insured. Dislodged roof tiles must be secured provisionally at once to avoid further damage from rain."),
  "de": ("Sturmschaden", "Schäden durch Sturm ab Windstärke acht am Dach oder an der Fassade sind versichert. Abgedeckte Dachziegel müssen sofort provisorisch gesichert werden, um Folgeschäden durch Regen zu vermeiden."),
  "fr": ("Dégâts causés par la tempête", "Les dommages causés au toit ou à la façade par une tempête de force huit ou plus sont assurés. Les tuiles arrachées doivent être sécurisées provisoirement sans délai pour éviter d'autres dégâts dus à la pluie."),
  "es": ("Daños por tormenta", "Los daños causados al tejado o a la fachada por tormentas de fuerza ocho o superior están asegurados. Las tejas desprendidas deben asegurarse provisionalmente de inmediato para evitar más daños por la lluvia."),
 },
 "burglary": {
  "en": ("Burglary", "After a burglary the police must be informed at once and a list of the stolen items sent to the insurer. Doors and windows that were broken open are secured until they are repaired."),
  "de": ("Einbruchdiebstahl", "Nach einem Einbruch ist sofort die Polizei zu verständigen und dem Versicherer eine Liste der gestohlenen Gegenstände einzureichen. Aufgebrochene Türen und Fenster werden bis zur Reparatur gesichert."),
  "fr": ("Cambriolage", "Après un cambriolage, il faut prévenir immédiatement la police et envoyer à l'assureur la liste des objets volés. Les portes et fenêtres forcées sont sécurisées jusqu'à leur réparation."),
  "es": ("Robo con allanamiento", "Tras un robo en la vivienda hay que avisar de inmediato a la policía y enviar a la aseguradora una lista de los objetos robados. Las puertas y ventanas forzadas se aseguran hasta su reparación."),
 },
 "glass": {
  "en": ("Glass breakage", "Broken window panes, glass doors and ceramic hobs are covered by the glass insurance. The damage is paid without excess when the glazier presents an invoice."),
  "de": ("Glasbruch", "Zerbrochene Fensterscheiben, Glastüren und Ceranfelder sind über die Glasversicherung abgedeckt. Der Schaden wird ohne Selbstbeteiligung ersetzt, wenn der Glaser eine Rechnung vorlegt."),
  "fr": ("Bris de glace", "Les vitres cassées, les portes vitrées et les plaques vitrocéramiques sont couvertes par la garantie bris de glace. Le dommage est remboursé sans franchise sur présentation de la facture du vitrier."),
  "es": ("Rotura de cristales", "Los cristales de ventana rotos, las puertas de vidrio y las placas vitrocerámicas están cubiertos por el seguro de rotura de cristales. El daño se indemniza sin franquicia si el cristalero presenta una factura."),
 },
 "bicycle": {
  "en": ("Bicycle theft", "A stolen bicycle is only insured if it was locked to a fixed object. The theft must be reported with the frame number and the purchase receipt."),
  "de": ("Fahrraddiebstahl", "Ein gestohlenes Fahrrad ist nur versichert, wenn es mit einem Schloss an einem festen Gegenstand angeschlossen war. Der Diebstahl ist mit der Rahmennummer und dem Kaufbeleg zu melden."),
  "fr": ("Vol de vélo", "Un vélo volé n'est assuré que s'il était attaché à un point fixe avec un antivol. Le vol doit être déclaré avec le numéro de cadre et la facture d'achat."),
  "es": ("Robo de bicicleta", "Una bicicleta robada solo está asegurada si estaba atada a un objeto fijo con un candado. El robo debe denunciarse con el número de cuadro y el ticket de compra."),
 },
}
CLOSE_Q = {
 "en": [("employment", "resigning from employment in writing, emailed notices"), ("contents", "cancellation of home contents policies after claims"), ("mobile", "minimum terms of mobile contracts and keeping numbers"), ("gym", "cancelling gym memberships early when ill or moving"), ("dunning", "reminder fees and debt collectors for unpaid invoices"), ("discount", "discounts for paying early, shipping excluded"), ("instalments", "paying purchases in monthly instalments, missed instalment"), ("credit", "credit notes for wrongly charged items refunded"), ("wedding", "special leave for weddings and births"), ("parental", "requesting parental leave and dismissal protection"), ("training", "training days for recognised courses, attendance certificates"), ("sickleave", "falling sick on holiday, sick days counted"), ("storm", "storms damaging roofs and roof tiles"), ("burglary", "burglaries, police and lists of stolen items"), ("glass", "broken window pane or ceramic hob glass cover"), ("bicycle", "stolen bikes, locks and frame numbers")],
 "de": [("employment", "Arbeitsverhältnisse schriftlich kündigen, Kündigungen per E-Mail"), ("contents", "Hausratversicherungen nach Schadensfällen kündigen"), ("mobile", "Mobilfunkverträge Mindestlaufzeiten Rufnummern mitnehmen"), ("gym", "vorzeitige Kündigung von Mitgliedschaften bei Krankheiten oder Umzügen"), ("dunning", "Gebühren für Mahnungen und Übergabe an Inkassobüros"), ("discount", "Skonto abziehen bei schnellen Zahlungen auf Rechnungsbeträge"), ("instalments", "Kaufpreises in Monatsrate zahlen, rückständige Rate"), ("credit", "Gutschriften für fehlerhaft berechneten Artikel überweisen"), ("wedding", "Antrag des Sonderurlaubs für Hochzeiten und Geburten"), ("parental", "Elternzeiten schriftlich verlangen, Kündigungsschutzes"), ("training", "Anspruch auf Bildungsurlaube für eine anerkannte Weiterbildung"), ("sickleave", "im Urlaub erkrankte Beschäftigte, Krankheitstag anrechnen"), ("storm", "Stürme beschädigen Dächer und Dachziegeln"), ("burglary", "Einbrüche, Polizei und gestohlener Gegenstand"), ("glass", "zerbrochenes Ceranfeld oder Fensterscheibe, Selbstbeteiligungen"), ("bicycle", "Fahrräder gestohlen, Schlösser und Rahmennummern")],
 "fr": [("employment", "démissionner par écrit, démissions par courriels"), ("contents", "résiliation des assurances habitation après sinistres"), ("mobile", "forfaits mobiles engagements minimaux, numéros conservés"), ("gym", "abonnements salles de sport résiliés, déménagements et maladies"), ("dunning", "frais de relances et recouvrement des factures impayées"), ("discount", "escomptes pour paiements anticipés, port exclu"), ("instalments", "régler un achat par mensualité, solde exigible"), ("credit", "avoir émis pour un article facturé par erreur, virement"), ("wedding", "congés pour mariages et naissances"), ("parental", "demander des congés parentaux, protection contre les licenciements"), ("training", "jours de formation reconnue, attestations de présence"), ("sickleave", "tomber malade en congé, journées de maladie décomptées"), ("storm", "tempêtes, toits endommagés et tuile arrachée"), ("burglary", "cambriolages, police et objet volé"), ("glass", "vitre cassée ou plaque vitrocéramique, franchises"), ("bicycle", "vélos volés, antivols et numéros de cadre")],
 "es": [("employment", "dimitir por escrito, dimisiones por correo"), ("contents", "cancelar seguros de hogar tras siniestros"), ("mobile", "permanencias de líneas móviles y conservación del número"), ("gym", "bajas anticipadas de gimnasios por mudanzas o enfermedades"), ("dunning", "recordatorios de facturas impagadas y agencias de cobro"), ("discount", "descuentos por pagar pronto, envíos excluidos"), ("instalments", "pagar una compra en cuota mensual, saldos pendientes"), ("credit", "abonos emitidos por artículo facturado erróneamente, transferencia"), ("wedding", "permisos por matrimonios y nacimientos"), ("parental", "solicitar excedencias por cuidado de un hijo, despidos"), ("training", "formaciones reconocidas y certificados de asistencia"), ("sickleave", "enfermar en vacaciones, día de enfermedad descontado"), ("storm", "tormenta, tejados dañados y teja desprendida"), ("burglary", "robos en viviendas, policía y objeto robado"), ("glass", "cristal roto o placa vitrocerámica, franquicias"), ("bicycle", "bicicletas robadas, candados y números de cuadro")],
}
root = Path(__file__).parent
with open(f"{root}/corpus.jsonl", "w") as f:
    for topic, langs in (T | CLOSE).items():
        for lang, (title, text) in langs.items():
            f.write(json.dumps({"_id": f"{lang}-{topic}", "title": title, "text": text}, ensure_ascii=False) + "\n")
with open(f"{root}/queries.jsonl", "w") as f, open(f"{root}/qrels/test.tsv", "w") as q:
    q.write("query-id\tcorpus-id\tscore\n")
    for lang, items in Q.items():
        for i, (topic, text) in enumerate(items):
            qid = f"q-{lang}-{i:02d}"
            f.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
            q.write(f"{qid}\t{lang}-{topic}\t1\n")
    for lang, items in HARD.items():
        for i, (topic, text) in enumerate(items):
            qid = f"q-{lang}-h{i:02d}"
            f.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
            q.write(f"{qid}\t{lang}-{topic}\t1\n")
    for lang, items in CLOSE_Q.items():
        for i, (topic, text) in enumerate(items):
            qid = f"q-{lang}-c{i:02d}"
            f.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
            q.write(f"{qid}\t{lang}-{topic}\t1\n")
print(sum(len(v) for v in (T | CLOSE).values()), sum(len(v) for v in Q.values()) +
      sum(len(v) for v in HARD.values()) + sum(len(v) for v in CLOSE_Q.values()))
