ANSWERS = {"step 1.1 of \"The Vermont Catamounts men's soccer team currently competes in a conference that was formerly known as what from 1988 to 1996?\"":"fact-9cc9bf","step 2.1 of \"The Vermont Catamounts men's soccer team currently competes in a conference that was formerly known as what from 1988 to 1996?\"":"fact-a87874"}

def find_entity_c5375692d6f0(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
